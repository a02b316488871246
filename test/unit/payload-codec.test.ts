import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { AesGcmPayloadCodec, ENCRYPTED_ENCODING, KEY_ID_METADATA } from '../../common/payload-codec';

const key = (id: string) => ({ id, key: randomBytes(32) });
const payload = (value: unknown) => defaultPayloadConverter.toPayload(value);
const textOf = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? new Uint8Array()).toString('utf8');

describe('AES-256-GCM payload codec', () => {
  it('encrypts each payload whole (no plaintext left, the key id in metadata) and decrypts it back', async () => {
    const codec = new AesGcmPayloadCodec([key('k1')]);
    const original = payload({ question: 'secret question' });
    const [encrypted] = await codec.encode([original]);
    expect(textOf(encrypted!.metadata!.encoding)).toBe(ENCRYPTED_ENCODING);
    expect(textOf(encrypted!.metadata![KEY_ID_METADATA])).toBe('k1');
    expect(Buffer.from(encrypted!.data!).includes('secret question')).toBe(false);
    expect(Object.keys(encrypted!.metadata!)).toEqual(['encoding', KEY_ID_METADATA]);
    const [decoded] = await codec.decode([encrypted!]);
    expect(defaultPayloadConverter.fromPayload(decoded!)).toEqual({ question: 'secret question' });
    // A fresh nonce each time: the same value never encrypts the same way twice.
    const [again] = await codec.encode([original]);
    expect(Buffer.from(again!.data!).equals(Buffer.from(encrypted!.data!))).toBe(false);
  });

  it('after a rotation encrypts with the new key and still decrypts the old one; an unknown key or altered bytes fail', async () => {
    const old = key('k1');
    const [byOld] = await new AesGcmPayloadCodec([old]).encode([payload('before')]);
    const rotated = new AesGcmPayloadCodec([key('k2'), old]);
    const [byNew] = await rotated.encode([payload('after')]);
    expect(textOf(byNew!.metadata![KEY_ID_METADATA])).toBe('k2');
    expect((await rotated.decode([byOld!, byNew!])).map((p) => defaultPayloadConverter.fromPayload(p))).toEqual(['before', 'after']);

    await expect(new AesGcmPayloadCodec([key('k3')]).decode([byOld!])).rejects.toThrow(/key "k1"/);
    const altered = Buffer.from(byNew!.data!);
    altered[20] = altered[20]! ^ 1;
    await expect(rotated.decode([{ ...byNew!, data: altered }])).rejects.toThrow();
  });

  it('passes payloads that were never encrypted through unchanged (workflows started before the codec)', async () => {
    const plain = payload({ started: 'before' });
    const [decoded] = await new AesGcmPayloadCodec([key('k1')]).decode([plain]);
    expect(decoded).toBe(plain);
  });
});
