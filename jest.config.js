/** Jest runs the TypeScript tests against the real local stack (see stack/test.sh). */
module.exports = {
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': 'ts-jest' },
  // Node's environment, sharing the typed-array constructors that onnxruntime (local embeddings) checks.
  testEnvironment: '<rootDir>/test/support/onnx-environment.js',
  testTimeout: 60_000,
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
