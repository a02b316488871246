import { z } from 'zod';
import { parseHttpUrl, UnsafeUrlError } from '../net/url-guard';

/** Building blocks shared by every resource schema. */
export const isoDate = z.string().meta({ description: 'ISO 8601 UTC timestamp', example: '2026-11-23T08:00:00.000Z' });

export const resourceId = (prefix: string, description: string) =>
  z
    .string()
    .regex(new RegExp(`^${prefix}_[A-Za-z0-9]{1,64}$`), `must be a ${prefix}_ id`)
    .meta({ description, example: `${prefix}_8a3XbQv2mK0pLr7sTu9w` });

/**
 * An id a request body refers to. Any shape is taken: one that names nothing answers 10004 from the
 * lookup, exactly like a well-formed id that names nothing.
 */
export const referenceTo = (prefix: string, description: string) =>
  z
    .string()
    .min(1)
    .max(128)
    .meta({ description: `${description} (\`${prefix}_…\`; one that names nothing: 10004)`, example: `${prefix}_8a3XbQv2mK0pLr7sTu9w` });

export const metadataMap = z
  .record(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'keys are 1-64 of A-Z a-z 0-9 _ . -'), z.string().max(1000))
  .refine((m) => Object.keys(m).length <= 32, 'at most 32 keys')
  .meta({ description: 'Free-form string labels (at most 32 keys, values up to 1000 characters)' });

export const pageQuery = z
  .object({
    page: z.coerce.number().int().min(1).max(100_000).default(1).meta({ description: '1-based page number' }),
    page_size: z.coerce.number().int().min(1).max(100).default(20).meta({ description: 'items per page, 1-100' }),
    after: z
      .string()
      .min(1)
      .max(1000)
      .optional()
      .meta({
        description:
          'a `next_cursor` of this list: the page after it (`page` is then not used and `total` is not counted). ' +
          'Reads only that page however long the list, and skips or repeats nothing when items are added meanwhile',
      }),
    include_total: z
      .enum(['true', 'false'])
      .optional()
      .meta({ description: '`false`: do not count `total` on a page-number request (counting visits every matching item)' }),
  })
  .strict();

/** A page of a list of named things, optionally only those whose name contains some text. */
export const namedPageQuery = pageQuery
  .extend({
    name: z.string().trim().min(1).max(100).optional().meta({
      description: 'only those whose name contains this text, ignoring letter case',
      example: 'support',
    }),
  })
  .strict();

export const pageOf = <T extends z.ZodType>(item: T, id: string) =>
  z
    .object({
      items: z.array(item),
      total: z.number().int().optional().meta({
        description: 'number of items across all pages; on page-number requests (absent with `after`, or with `include_total=false`)',
      }),
      page: z.number().int(),
      page_size: z.number().int(),
      next_cursor: z.string().nullable().meta({ description: 'pass as `after` for the page after this one; null on the last page' }),
    })
    .meta({ id });

export const deletedResult = z.object({ deleted: z.literal(true) }).meta({ id: 'Deleted' });

/** An http(s) URL without credentials, at most 2000 characters; where it may point is checked by its command. */
export const httpUrlText = z
  .string()
  .max(2000)
  .superRefine((raw, ctx) => {
    try {
      parseHttpUrl(raw);
    } catch (err) {
      if (!(err instanceof UnsafeUrlError)) throw err;
      ctx.addIssue({ code: 'custom', message: err.message });
    }
  });
