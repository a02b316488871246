import type { Payload } from '@temporalio/common';
import type { Config } from '../common/config';
import { invalid } from '../common/errors';
import type { TemporalPayloads } from '../common/schemas/temporal-payloads';
import { temporalDataConverter } from '../common/temporal-data-converter';

const fromWire = ({ metadata, data }: TemporalPayloads['payloads'][number]): Payload => ({
  metadata: Object.fromEntries(Object.entries(metadata).map(([key, value]) => [key, Buffer.from(value, 'base64')])),
  data: Buffer.from(data, 'base64'),
});

const toWire = ({ metadata, data }: Payload): TemporalPayloads['payloads'][number] => ({
  metadata: Object.fromEntries(Object.entries(metadata ?? {}).map(([key, value]) => [key, Buffer.from(value).toString('base64')])),
  data: Buffer.from(data ?? new Uint8Array()).toString('base64'),
});

/**
 * The payload codec as a service for operators' tools (the Temporal UI's and CLI's remote codec,
 * as Temporal documents it): payloads of this installation's namespace encrypted or decrypted with
 * TEMPORAL_PAYLOAD_KEYS; without keys they come back as they are.
 */
export function createTemporalPayloadCommands(config: Pick<Config, 'TEMPORAL_PAYLOAD_KEYS' | 'TEMPORAL_NAMESPACE'>) {
  const codec = temporalDataConverter(config)?.payloadCodecs?.[0];
  const checkNamespace = (namespace: string | undefined) => {
    if (namespace !== undefined && namespace !== config.TEMPORAL_NAMESPACE)
      throw invalid(`header.X-Namespace: this service's payloads are in namespace ${config.TEMPORAL_NAMESPACE}`, {
        field: 'header.X-Namespace',
      });
  };
  const apply = async (body: TemporalPayloads, namespace: string | undefined, way: 'encode' | 'decode'): Promise<TemporalPayloads> => {
    checkNamespace(namespace);
    if (!codec) return body;
    const payloads = body.payloads.map(fromWire);
    try {
      return { payloads: (await codec[way](payloads)).map(toWire) };
    } catch (err) {
      // A payload of another key, or altered: named, never echoed.
      throw invalid(`payloads: ${(err as Error).message}`, { field: 'body.payloads' });
    }
  };
  return {
    encode: (body: TemporalPayloads, namespace?: string) => apply(body, namespace, 'encode'),
    decode: (body: TemporalPayloads, namespace?: string) => apply(body, namespace, 'decode'),
  };
}
