/**
 * Jest runs each test file in a realm of its own. onnxruntime-node creates its output tensors'
 * arrays in Node's main realm, and onnxruntime-common then rejects them with an `instanceof` check
 * against the test realm's constructors ("A float32 tensor's data must be type of Float32Array").
 * Test files that run the local embedding model use this environment (docblock
 * `@jest-environment ./test/support/onnx-environment.js`), which gives the test realm Node's own
 * constructors for the types that model uses. Outside Jest there is one realm and no such issue.
 */
const { TestEnvironment } = require('jest-environment-node');

class OnnxEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.global.Float32Array = Float32Array;
    this.global.BigInt64Array = BigInt64Array;
  }
}

module.exports = OnnxEnvironment;
