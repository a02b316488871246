import { z } from 'zod';

/** Base64 text of at most 4 MB of bytes (Temporal's own blob limit is 2 MB per payload by default). */
const base64 = z
  .string()
  .max(6_000_000)
  .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64');

/** A Temporal payload as Temporal's remote codec protocol carries it: metadata values and data in base64. */
const wirePayload = z
  .object({
    metadata: z.record(z.string().max(256), base64).default({}),
    data: base64.default(''),
  })
  .meta({ id: 'TemporalPayload' });

export const temporalPayloads = z.object({ payloads: z.array(wirePayload).max(1_000) }).meta({
  id: 'TemporalPayloads',
  description: "Temporal's remote codec body: `{payloads: [{metadata: {key: base64}, data: base64}]}`, as the Temporal UI and CLI send it",
});

export type TemporalPayloads = z.infer<typeof temporalPayloads>;
