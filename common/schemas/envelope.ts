import { ErrorCodes } from '../errors';
import { z } from 'zod';

/** The spec's response envelope: `code` 0 and `message` "ok" on success. */
export const envelopeOf = <T extends z.ZodType>(data: T) =>
  z.object({
    code: z.literal(0),
    data,
    message: z.literal('ok'),
  });

export const errorEnvelope = z
  .object({
    code: z.number().int().meta({ description: 'error code from the spec table (10001-30002)', example: ErrorCodes.INVALID_PARAMETERS }),
    data: z
      .object({
        trace_id: z.string().optional(),
        field: z.string().optional().meta({ description: 'offending field, for 10001' }),
      })
      .catchall(z.unknown()),
    message: z.string().meta({ example: 'body.name: Too small: expected string to have >=1 characters' }),
  })
  .meta({ id: 'Error' });
