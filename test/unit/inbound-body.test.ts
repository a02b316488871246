import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { readInboundBody, MAX_PAYLOAD_DEPTH } from '../../triggers/inbound-body';

const read = (bytes: Buffer | string, contentEncoding = '', charset = '', maxBytes = 10_000) =>
  readInboundBody(Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes), { contentEncoding, charset, maxBytes });
const failure = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err as { code: number; message: string; details?: { field?: string } };
  }
  throw new Error('did not fail');
};

describe('inbound body', () => {
  const json = '{"action":"opened","n":1}';

  it('keeps the text as sent when nothing needs cleaning', () => {
    expect(read(json)).toEqual({ payload: { action: 'opened', n: 1 }, text: json });
  });

  it('inflates gzip, deflate (zlib or raw), br and stacked codings', () => {
    for (const [bytes, coding] of [
      [gzipSync(json), 'gzip'],
      [gzipSync(json), 'x-gzip'],
      [deflateSync(json), 'deflate'],
      [deflateRawSync(json), 'deflate'],
      [brotliCompressSync(json), 'br'],
      [brotliCompressSync(gzipSync(json)), 'gzip, br'],
      [Buffer.from(json), 'identity'],
    ] as const) {
      expect(read(bytes, coding).payload).toEqual({ action: 'opened', n: 1 });
    }
  });

  it('refuses unknown codings, corrupt data and bodies too large once inflated (a zip bomb)', () => {
    expect(failure(() => read(json, 'compress'))).toMatchObject({ code: 10001, details: { field: 'header.Content-Encoding' } });
    expect(failure(() => read('not gzip', 'gzip'))).toMatchObject({ code: 10001, message: 'body: not valid gzip data' });
    const bomb = gzipSync(JSON.stringify({ pad: 'x'.repeat(5_000_000) }));
    expect(bomb.length).toBeLessThan(10_000);
    expect(failure(() => read(bomb, 'gzip'))).toMatchObject({ code: 10001, message: 'body: more than 10000 bytes once decompressed' });
  });

  it('decodes the declared charset; bytes invalid in it read as U+FFFD', () => {
    const latin1 = Buffer.from([...Buffer.from('{"name":"'), 0xe9, ...Buffer.from('"}')]);
    expect(read(latin1, '', 'iso-8859-1').payload).toEqual({ name: 'é' });
    expect(read(latin1).payload).toEqual({ name: '\uFFFD' });
    expect(failure(() => read(json, '', 'no-such-charset'))).toMatchObject({ code: 10001, details: { field: 'header.Content-Type' } });
  });

  it('removes NUL and replaces lone surrogates in keys and values, at any depth, and stores the cleaned copy', () => {
    const sent = '{"a\\u0000b":"x\\u0000y","list":[{"k":"\\ud800!"}],"n":null,"ok":true}';
    const body = read(sent);
    expect(body.payload).toEqual({ ab: 'xy', list: [{ k: '\uFFFD!' }], n: null, ok: true });
    expect(body.text).toBe(JSON.stringify(body.payload));
    expect(body.text).not.toContain('\\u0000');
  });

  it('keeps a "__proto__" key as data', () => {
    const body = read('{"__proto__":{"polluted":"\\u0000yes"}}');
    expect(Object.getPrototypeOf(body.payload)).toBe(Object.prototype);
    expect(Object.hasOwn(body.payload, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses what is not a JSON object, and nesting past the limit', () => {
    for (const text of ['', '[1]', '"x"', 'null'])
      expect(failure(() => read(text))).toMatchObject({ code: 10001, details: { field: 'body' } });
    expect(failure(() => read('{"a":'))).toMatchObject({ code: 10001, message: 'malformed JSON body' });
    const deep = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
    expect(read(deep(MAX_PAYLOAD_DEPTH)).payload).toBeDefined();
    expect(failure(() => read(deep(MAX_PAYLOAD_DEPTH + 1)))).toMatchObject({
      code: 10001,
      message: `body: nested deeper than ${MAX_PAYLOAD_DEPTH} levels`,
    });
    expect(failure(() => read(deep(100_000), '', '', 1_000_000))).toMatchObject({ code: 10001 });
  });
});
