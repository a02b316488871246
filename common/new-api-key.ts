import { randomToken } from './ids';

/** Prints a fresh key in the API key format, for BOOTSTRAP_API_KEY (stack/start.sh uses it). */
process.stdout.write(`combo_${randomToken(8)}_${randomToken(32)}\n`);
