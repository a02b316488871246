import { randomBytes } from 'node:crypto';
import type { Db } from 'mongodb';
import { isDuplicateKey } from './mongo';
import type { SecretBox } from './secret-box';

interface ServiceKeyDoc {
  _id: string;
  /** The key, base64, sealed with SECRETS_ENCRYPTION_KEY. */
  sealed: string;
  created_at: Date;
}

/**
 * Keys the service makes for itself, generated at first use and kept encrypted, so every API
 * process of an installation signs and verifies with the same one.
 */
export function createServiceKeyStore(db: Db, secretBox: SecretBox) {
  const serviceKeys = db.collection<ServiceKeyDoc>('service_keys');

  return {
    /** The named 32-byte key; the first process to ask creates it, every other one reads that. */
    async getOrCreate(name: string): Promise<Buffer> {
      const existing = await serviceKeys.findOne({ _id: name });
      if (existing) return Buffer.from(secretBox.open(existing.sealed), 'base64');
      const key = randomBytes(32);
      try {
        await serviceKeys.insertOne({ _id: name, sealed: secretBox.seal(key.toString('base64')), created_at: new Date() });
        return key;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        const winner = await serviceKeys.findOne({ _id: name });
        if (!winner) throw err;
        return Buffer.from(secretBox.open(winner.sealed), 'base64');
      }
    },
  };
}
