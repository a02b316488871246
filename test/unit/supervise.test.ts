import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { isAlive as alive, killSupervisors, supervise as superviseCommand } from '../support/supervisor';

const SUPERVISE = join(__dirname, '..', '..', 'stack', 'supervise.sh');

/** A supervised Node script. */
const supervise = (childScript: string, env: Record<string, string>) =>
  superviseCommand('demo', [process.execPath, '-e', childScript], env);

/** stack/supervise.sh, which `npm start` runs the API and the worker under. */
describe('the process supervisor', () => {
  afterEach(killSupervisors);

  it('restarts a killed process, logging the signal, and on SIGTERM stops it without restarting', async () => {
    const child =
      "process.on('SIGTERM', () => { console.log('child stopping on SIGTERM'); process.exit(0); }); console.log('child ready'); setInterval(() => {}, 1000);";
    const sup = supervise(child, {
      SUPERVISE_BACKOFF_MS: '100',
    });
    const first = Number((await sup.waitFor(/started \(pid (\d+)\)/))[1]);
    await sup.waitFor(/child ready/);
    process.kill(first, 'SIGKILL');
    await sup.waitFor(/was ended by signal KILL; restarting in 0\.100 s \(restart 1\)/);
    const second = Number((await sup.waitFor(/restart 1\)\n.*started \(pid (\d+)\)/))[1]);
    expect(second).not.toBe(first);
    expect(alive(second)).toBe(true);
    // Its SIGTERM handler is installed once it says so.
    await sup.waitFor(/restart 1\)[\s\S]*child ready/);

    sup.process.kill('SIGTERM');
    expect(await sup.exited).toBe(0);
    expect(sup.log()).toContain('child stopping on SIGTERM');
    expect(sup.log()).toMatch(/exited with code 0; stopped\n$/);
    expect(alive(second)).toBe(false);
    expect(sup.log().match(/started \(pid/g)).toHaveLength(2);
  });

  it('backs off exponentially up to the cap while the process keeps failing, and stops while waiting', async () => {
    const sup = supervise('process.exit(3)', { SUPERVISE_BACKOFF_MS: '50', SUPERVISE_BACKOFF_MAX_MS: '200' });
    await sup.waitFor(/\(restart 5\)/);
    const delays = [...sup.log().matchAll(/exited with code 3; restarting in ([\d.]+) s/g)].map((m) => m[1]);
    expect(delays.slice(0, 5)).toEqual(['0.050', '0.100', '0.200', '0.200', '0.200']);

    sup.process.kill('SIGTERM');
    expect(await sup.exited).toBe(0);
    expect(sup.log()).toMatch(/stopped\n$/);
  });

  it('refuses to start without a command', async () => {
    const proc = spawn('bash', [SUPERVISE, 'demo'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    proc.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    expect(await new Promise((resolve) => proc.once('exit', resolve))).toBe(2);
    expect(err).toContain('usage: stack/supervise.sh');
  });
});
