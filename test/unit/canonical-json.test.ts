import { canonicalJson } from '../../common/canonical-json';

describe('canonical JSON', () => {
  it('reads the same whatever order the keys were written in, at every depth', () => {
    const a = { name: 'x', metadata: { team: 'a', env: 'test' }, tools: [{ b: 1, a: [2, { d: null, c: true }] }] };
    const b = { tools: [{ a: [2, { c: true, d: null }], b: 1 }], metadata: { env: 'test', team: 'a' }, name: 'x' };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(a)).toBe('{"metadata":{"env":"test","team":"a"},"name":"x","tools":[{"a":[2,{"c":true,"d":null}],"b":1}]}');
  });

  it('keeps what makes values differ: array order, types, escaped text', () => {
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
    expect(canonicalJson({ n: 1 })).not.toBe(canonicalJson({ n: '1' }));
    expect(canonicalJson({ 'a"': 'line\nbreak' })).toBe(JSON.stringify({ 'a"': 'line\nbreak' }));
    expect(canonicalJson(null)).toBe('null');
  });
});
