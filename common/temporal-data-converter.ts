import type { DataConverter } from '@temporalio/common';
import type { Config } from './config';
import { AesGcmPayloadCodec } from './payload-codec';

/**
 * The data converter of every Temporal client and worker of the service: with TEMPORAL_PAYLOAD_KEYS
 * set, every payload is encrypted (common/payload-codec.ts); without, Temporal's default.
 */
export function temporalDataConverter(config: Pick<Config, 'TEMPORAL_PAYLOAD_KEYS'>): DataConverter | undefined {
  if (config.TEMPORAL_PAYLOAD_KEYS.length === 0) return undefined;
  const keys = config.TEMPORAL_PAYLOAD_KEYS.map((entry) => {
    const [id = '', key = ''] = entry.split(':');
    return { id, key: Buffer.from(key, 'base64') };
  });
  return { payloadCodecs: [new AesGcmPayloadCodec(keys)] };
}
