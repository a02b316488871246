/** Jest runs the TypeScript tests against the real local stack (see stack/test.sh). */
module.exports = {
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': 'ts-jest' },
  testEnvironment: 'node',
  testTimeout: 60_000,
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
