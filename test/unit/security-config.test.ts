import { ConfigError, loadConfig } from '../../common/config';

const valid = {
  MONGODB_URI: 'mongodb://127.0.0.1:27017/',
  ELASTICSEARCH_URL: 'http://127.0.0.1:9200',
  TEMPORAL_ADDRESS: '127.0.0.1:7233',
  SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
};

describe('CORS and console-token settings', () => {
  it('default to no origins, exp required and a day of lifetime', () => {
    expect(loadConfig(valid)).toMatchObject({ CORS_ORIGINS: [], JWT_REQUIRE_EXP: true, JWT_MAX_LIFETIME_S: 86_400 });
  });

  it('read a comma-separated origin list', () => {
    const config = loadConfig({ ...valid, CORS_ORIGINS: ' https://console.example.com ,http://localhost:5173,' });
    expect(config.CORS_ORIGINS).toEqual(['https://console.example.com', 'http://localhost:5173']);
  });

  it.each(['https://console.example.com/', 'https://console.example.com/app', 'console.example.com', 'ftp://x.example.com', '*'])(
    'refuse %s as an origin, naming CORS_ORIGINS',
    (origin) => {
      expect(() => loadConfig({ ...valid, CORS_ORIGINS: origin })).toThrow(ConfigError);
      expect(() => loadConfig({ ...valid, CORS_ORIGINS: origin })).toThrow(/CORS_ORIGINS/);
    },
  );

  it('refuse a lifetime under a minute and a non-boolean JWT_REQUIRE_EXP', () => {
    expect(() => loadConfig({ ...valid, JWT_MAX_LIFETIME_S: '10' })).toThrow(/JWT_MAX_LIFETIME_S/);
    expect(() => loadConfig({ ...valid, JWT_REQUIRE_EXP: 'yes' })).toThrow(/JWT_REQUIRE_EXP/);
  });
});
