import { z } from 'zod';

/**
 * The schemas the OpenAPI document names only inside a `contentSchema`. The generator reads no zod
 * schema inside `.meta()`, so it would not write their components: api/openapi.ts adds these.
 */
const carriedSchemas = new Set<z.ZodType>();

/**
 * A string carrying JSON, as an SSE `data:` line is: `type: string` with `contentMediaType:
 * application/json` and `contentSchema` a reference to the component of `schema` (which needs an
 * id). Validators that read what is on the wire (schemathesis) parse it and check the result.
 */
export function jsonText(schema: z.ZodType, description: string): z.ZodString {
  const id = schema.meta()?.id;
  if (typeof id !== 'string') throw new Error('jsonText: the carried schema needs a component id (.meta({ id }))');
  carriedSchemas.add(schema);
  return z.string().meta({
    description,
    contentMediaType: 'application/json',
    contentSchema: { $ref: `#/components/schemas/${id}` },
  });
}

/** Every schema a `jsonText` carries: components of the document that nothing else may reference. */
export const jsonTextSchemas = (): readonly z.ZodType[] => [...carriedSchemas];
