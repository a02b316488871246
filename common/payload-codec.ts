import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { METADATA_ENCODING_KEY, type Payload, type PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

/** The encoding an encrypted payload carries in its metadata: the whole original payload is its ciphertext. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** The metadata key naming the key a payload was encrypted with, so keys rotate without breaking running workflows. */
export const KEY_ID_METADATA = 'encryption-key-id';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const text = (value: string) => new TextEncoder().encode(value);
const read = (bytes: Uint8Array | null | undefined) => (bytes ? Buffer.from(bytes).toString('utf8') : '');

/** A key of the payload codec: its id (kept in each payload's metadata) and its 32 bytes. */
export interface PayloadKey {
  id: string;
  key: Buffer;
}

/**
 * Encrypts every payload Temporal stores (workflow and activity inputs and results, signals,
 * updates, queries, heartbeats, memos, failures' details) with AES-256-GCM: the original payload,
 * protobuf-encoded, is the ciphertext (nonce first, tag last) of a payload whose metadata says only
 * `binary/encrypted` and the key id. The first key encrypts; every key decrypts, so a new key goes
 * first and the old ones stay until no history needs them. Payloads that are not encrypted
 * (workflows started before the codec) pass through unchanged.
 */
export class AesGcmPayloadCodec implements PayloadCodec {
  private readonly keys: Map<string, Buffer>;
  private readonly active: PayloadKey;

  constructor(keys: PayloadKey[]) {
    if (keys.length === 0) throw new Error('the payload codec needs at least one key');
    for (const { id, key } of keys) if (key.length !== 32) throw new Error(`payload key ${id} must be 32 bytes`);
    this.keys = new Map(keys.map(({ id, key }) => [id, key]));
    this.active = keys[0]!;
  }

  // Async: a payload that cannot be decrypted rejects rather than throws, as the SDK expects.
  // eslint-disable-next-line @typescript-eslint/require-await
  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.encrypt(payload));
  }

  // eslint-disable-next-line @typescript-eslint/require-await
  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.decrypt(payload));
  }

  private encrypt(payload: Payload): Payload {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.active.key, iv);
    const plain = temporal.api.common.v1.Payload.encode(payload).finish();
    const data = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return { metadata: { [METADATA_ENCODING_KEY]: text(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: text(this.active.id) }, data };
  }

  private decrypt(payload: Payload): Payload {
    if (read(payload.metadata?.[METADATA_ENCODING_KEY]) !== ENCRYPTED_ENCODING) return payload;
    const keyId = read(payload.metadata?.[KEY_ID_METADATA]);
    const key = this.keys.get(keyId);
    if (!key) throw new Error(`payload encrypted with key "${keyId}", which TEMPORAL_PAYLOAD_KEYS does not hold`);
    const data = Buffer.from(payload.data ?? new Uint8Array());
    if (data.length < IV_BYTES + TAG_BYTES) throw new Error('encrypted payload too short');
    const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    const plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    return temporal.api.common.v1.Payload.decode(plain);
  }
}
