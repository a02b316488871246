import { loadConfig } from '../../common/config';
import { parseAllowedPrivateHost, providerUrlAllowsPrivate } from '../../common/net/private-hosts';
import { testEnvironment } from '../support/config';

const settings = (hosts: string, allowAll = false) => {
  const config = loadConfig(testEnvironment({ ALLOW_PRIVATE_URLS: String(allowAll), MODEL_PROVIDER_PRIVATE_HOSTS: hosts }));
  return { ALLOW_PRIVATE_URLS: config.ALLOW_PRIVATE_URLS, MODEL_PROVIDER_PRIVATE_HOSTS: config.MODEL_PROVIDER_PRIVATE_HOSTS };
};

describe('the private hosts model providers may reach (MODEL_PROVIDER_PRIVATE_HOSTS)', () => {
  it('reads host, host:port, IPv4, IPv6 and [IPv6]:port entries, normalised as URLs write their host', () => {
    expect(parseAllowedPrivateHost('Ollama')).toEqual({ host: 'ollama', port: null });
    expect(parseAllowedPrivateHost(' localhost:11434 ')).toEqual({ host: 'localhost', port: 11434 });
    expect(parseAllowedPrivateHost('host.docker.internal:80')).toEqual({ host: 'host.docker.internal', port: 80 });
    expect(parseAllowedPrivateHost('10.0.0.7')).toEqual({ host: '10.0.0.7', port: null });
    expect(parseAllowedPrivateHost('::0:1')).toEqual({ host: '::1', port: null });
    expect(parseAllowedPrivateHost('[fd00::5]:8000')).toEqual({ host: 'fd00::5', port: 8000 });
    for (const bad of ['', 'http://ollama', 'ollama/v1', 'user@ollama', 'ollama:99999', 'oll ama', '[fd00::5']) {
      expect({ bad, parsed: parseAllowedPrivateHost(bad) }).toEqual({ bad, parsed: null });
    }
  });

  it('refuses a setting with an entry that is not a host', () => {
    expect(() => settings('ollama, http://vllm:8000')).toThrow(/MODEL_PROVIDER_PRIVATE_HOSTS.*host or host:port/s);
    expect(settings('').MODEL_PROVIDER_PRIVATE_HOSTS).toEqual([]);
    expect(settings(' ollama ,, localhost:11434').MODEL_PROVIDER_PRIVATE_HOSTS).toEqual(['ollama', 'localhost:11434']);
  });

  it('allows private addresses to listed hosts only, on the listed port when one is given (the default port counts)', () => {
    const s = settings('ollama,localhost:11434,vllm:443,[fd00::5]:8000,10.0.0.7');
    const allowed = (url: string) => providerUrlAllowsPrivate(url, s);
    expect(allowed('http://ollama:11434/v1')).toBe(true);
    expect(allowed('https://OLLAMA/v1')).toBe(true);
    expect(allowed('http://localhost:11434/v1')).toBe(true);
    expect(allowed('http://localhost:11435/v1')).toBe(false);
    expect(allowed('http://localhost/v1')).toBe(false);
    expect(allowed('https://vllm/v1')).toBe(true);
    expect(allowed('http://vllm/v1')).toBe(false);
    expect(allowed('http://[fd00:0::5]:8000/v1')).toBe(true);
    expect(allowed('http://[fd00::5]/v1')).toBe(false);
    expect(allowed('http://10.0.0.7:9000')).toBe(true);
    expect(providerUrlAllowsPrivate(new URL('http://10.0.0.8'), s)).toBe(false);
    // A name that merely contains or extends a listed one is another host.
    expect(allowed('http://ollama.evil.example/v1')).toBe(false);
    expect(allowed('http://myollama/v1')).toBe(false);
    expect(allowed('not a url')).toBe(false);
  });

  it('allows every URL when ALLOW_PRIVATE_URLS is on, and none when nothing is listed', () => {
    expect(providerUrlAllowsPrivate('http://127.0.0.1:8000/v1', settings('', true))).toBe(true);
    expect(providerUrlAllowsPrivate('http://127.0.0.1:8000/v1', settings(''))).toBe(false);
    expect(providerUrlAllowsPrivate('http://localhost:11434/v1', settings(''))).toBe(false);
    // A vendor's own API (no base URL): only what ALLOW_PRIVATE_URLS allows.
    expect(providerUrlAllowsPrivate(undefined, settings('ollama'))).toBe(false);
    expect(providerUrlAllowsPrivate(undefined, settings('', true))).toBe(true);
  });
});
