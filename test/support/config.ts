import { type Config, loadConfig } from '../../common/config';
import { randomToken } from '../../common/ids';

export const TEST_JWT_SECRET = 'test-jwt-secret-that-is-at-least-32-characters';
const TEST_SECRETS_KEY = Buffer.alloc(32, 7).toString('base64');

/** The environment of a process on the real stack with a database and index prefix of its own. */
export function testEnvironment(overrides: Record<string, string> = {}): Record<string, string | undefined> {
  const suffix = randomToken(8).toLowerCase();
  return {
    MONGODB_URI: process.env.MONGODB_URI,
    ELASTICSEARCH_URL: process.env.ELASTICSEARCH_URL,
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
    // stack/test.sh exports where the local embedding model is (unset: the checkout's .stack/models).
    EMBEDDING_MODEL_DIR: process.env.EMBEDDING_MODEL_DIR,
    MONGODB_DB: `test_${suffix}`,
    ELASTICSEARCH_INDEX_PREFIX: `test_${suffix}`,
    TEMPORAL_TASK_QUEUE: `test-${suffix}`,
    API_HOST: '127.0.0.1',
    API_PORT: '0',
    JWT_SECRET: TEST_JWT_SECRET,
    SECRETS_ENCRYPTION_KEY: TEST_SECRETS_KEY,
    // Test consumers listen on loopback.
    ALLOW_PRIVATE_URLS: 'true',
    LOG_LEVEL: 'silent',
    ...overrides,
  };
}

/** A configuration on the real stack with a database and index prefix of its own. */
export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig(testEnvironment(overrides));
}
