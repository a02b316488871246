import { spawnSync } from 'node:child_process';
import { ConfigError, loadConfig } from '../../common/config';

const valid = {
  MONGODB_URI: 'mongodb://127.0.0.1:27017/',
  ELASTICSEARCH_URL: 'http://127.0.0.1:9200',
  TEMPORAL_ADDRESS: '127.0.0.1:7233',
  SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
};

describe('configuration from the environment', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig(valid);
    expect(config).toMatchObject({
      API_PORT: 9380,
      MONGODB_DB: 'combo',
      TEMPORAL_NAMESPACE: 'default',
      RATE_LIMIT_COMPLETIONS_PER_MIN: 60,
      RATE_LIMIT_UPLOADS_PER_MIN: 10,
      RATE_LIMIT_DEFAULT_PER_MIN: 300,
      IDEMPOTENCY_KEY_TTL_HOURS: 24,
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('treats empty optional settings as unset (as docker compose passes them) and reads the model settings', () => {
    const blank = loadConfig({
      ...valid,
      LLM_BASE_URL: '',
      LLM_API_KEY: '',
      COST_THRESHOLD_TOKENS: '',
      LLM_TEMPERATURE: '',
      LLM_MAX_TOKENS: '',
    });
    expect(blank).toMatchObject({ LLM_MODEL: 'gpt-4o-mini', LLM_TIMEOUT_MS: 60_000, LLM_MAX_ATTEMPTS: 3, COMPLETION_MAX_STEPS: 8 });
    expect([blank.LLM_BASE_URL, blank.LLM_API_KEY, blank.COST_THRESHOLD_TOKENS, blank.LLM_TEMPERATURE, blank.LLM_MAX_TOKENS]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    const set = loadConfig({ ...valid, LLM_BASE_URL: 'http://ollama:11434/v1', COST_THRESHOLD_TOKENS: '50000', LLM_TEMPERATURE: '0.3' });
    expect(set).toMatchObject({ LLM_BASE_URL: 'http://ollama:11434/v1', COST_THRESHOLD_TOKENS: 50_000, LLM_TEMPERATURE: 0.3 });
    expect(() => loadConfig({ ...valid, LLM_BASE_URL: 'ftp://x' })).toThrow(/LLM_BASE_URL/);
    expect(() => loadConfig({ ...valid, COST_THRESHOLD_TOKENS: '0' })).toThrow(/COST_THRESHOLD_TOKENS/);
    // The default model's prices and the money threshold: optional, prices from 0, the threshold above 0.
    const blankPrices = loadConfig({
      ...valid,
      LLM_INPUT_PRICE_PER_MILLION: '',
      LLM_OUTPUT_PRICE_PER_MILLION: '',
      COST_THRESHOLD_AMOUNT: '',
    });
    expect([blankPrices.LLM_INPUT_PRICE_PER_MILLION, blankPrices.LLM_OUTPUT_PRICE_PER_MILLION, blankPrices.COST_THRESHOLD_AMOUNT]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(
      loadConfig({ ...valid, LLM_INPUT_PRICE_PER_MILLION: '0.15', LLM_OUTPUT_PRICE_PER_MILLION: '0', COST_THRESHOLD_AMOUNT: '12.5' }),
    ).toMatchObject({ LLM_INPUT_PRICE_PER_MILLION: 0.15, LLM_OUTPUT_PRICE_PER_MILLION: 0, COST_THRESHOLD_AMOUNT: 12.5 });
    expect(() => loadConfig({ ...valid, LLM_INPUT_PRICE_PER_MILLION: '-1' })).toThrow(/LLM_INPUT_PRICE_PER_MILLION/);
    expect(() => loadConfig({ ...valid, COST_THRESHOLD_AMOUNT: '0' })).toThrow(/COST_THRESHOLD_AMOUNT/);
    // A window of seconds, for tests: fractions of an hour.
    expect(loadConfig({ ...valid, IDEMPOTENCY_KEY_TTL_HOURS: '0.5' }).IDEMPOTENCY_KEY_TTL_HOURS).toBe(0.5);
  });

  it.each([
    [{ MONGODB_URI: undefined }, 'configuration error: MONGODB_URI is required but not set'],
    [{ MONGODB_URI: 'postgres://x' }, 'configuration error: MONGODB_URI must be a mongodb:// or mongodb+srv:// URI'],
    [{ TEMPORAL_ADDRESS: 'localhost' }, 'configuration error: TEMPORAL_ADDRESS must be host:port'],
    [{ API_PORT: 'ninety' }, 'configuration error: API_PORT'],
    [{ JWT_SECRET: 'short' }, 'configuration error: JWT_SECRET must be at least 32 characters'],
    [{ BOOTSTRAP_API_KEY: 'sk-123' }, 'configuration error: BOOTSTRAP_API_KEY must look like combo_<8 chars>_<32 chars>'],
    [{ LOG_LEVEL: 'loud' }, 'configuration error: LOG_LEVEL'],
    [{ SECRETS_ENCRYPTION_KEY: 'c2hvcnQ=' }, 'configuration error: SECRETS_ENCRYPTION_KEY must be 32 bytes, base64-encoded'],
    [{ IDEMPOTENCY_KEY_TTL_HOURS: '0.0001' }, 'configuration error: IDEMPOTENCY_KEY_TTL_HOURS must be at least one second'],
  ])('names the bad variable: %j', (change, expected) => {
    expect(() => loadConfig({ ...valid, ...change })).toThrow(ConfigError);
    expect(() => loadConfig({ ...valid, ...change })).toThrow(expected);
  });

  // The built entry points (npm test builds before it runs jest).
  it.each(['dist/api/main.js', 'dist/workers/main.js'])('%s stops with one line naming the variable', (entry) => {
    const env = { PATH: process.env.PATH, ...valid, ELASTICSEARCH_URL: 'not a url' };
    const run = spawnSync(process.execPath, [entry], { env, encoding: 'utf8', timeout: 20_000 });
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^configuration error: ELASTICSEARCH_URL /)]);
  });
});
