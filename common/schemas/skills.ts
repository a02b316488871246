import Ajv, { type ValidateFunction } from 'ajv';
import { z } from 'zod';
import { httpUrlText, isoDate, pageOf, referenceTo, resourceId } from './common';
import { sessionId } from './sessions';

const skillId = resourceId('skl', 'skill id');

/** Separates skill and tool in the names the model sees: `<skill>__<tool>`. */
const TOOL_NAME_SEPARATOR = '__';
/** OpenAI's ceiling on a function name (^[a-zA-Z0-9_-]{1,64}$). */
const MODEL_TOOL_NAME_MAX = 64;
const PARAMETERS_MAX_CHARS = 16_384;

// One compiler for every tool schema; `addUsedSchema: false` and the removal after compiling keep
// one tool's schema from being visible to (or clashing with) another's.
const ajv = new Ajv({ strict: false, allErrors: false, addUsedSchema: false, logger: false });
const validators = new Map<string, ValidateFunction>();
const VALIDATOR_CACHE_MAX = 1_000;

const hasNestedId = (value: unknown): boolean => {
  if (Array.isArray(value)) return value.some(hasNestedId);
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([key, inner]) => (key === '$id' && typeof inner === 'string') || hasNestedId(inner));
};

export class InvalidJsonSchemaError extends Error {}

/**
 * The compiled validator of a tool's `parameters` (JSON Schema draft-07), cached by the schema's
 * JSON text: tools are read afresh from the database on every run, so object identity is useless
 * as a key. Throws InvalidJsonSchemaError saying what is wrong.
 */
export function argumentValidator(parameters: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(parameters);
  const cached = validators.get(key);
  if (cached) return cached;
  if (hasNestedId(parameters)) throw new InvalidJsonSchemaError('`$id` is not supported: the schema must be self-contained');
  let wellFormed: boolean;
  try {
    wellFormed = ajv.validateSchema(parameters) as boolean;
  } catch (err) {
    // An unknown `$schema` (only draft-07 is known) throws instead of answering false.
    throw new InvalidJsonSchemaError(`not a usable JSON Schema: ${(err as Error).message}`);
  }
  if (!wellFormed) {
    throw new InvalidJsonSchemaError(`not a valid JSON Schema: ${ajv.errorsText(ajv.errors?.slice(0, 1), { dataVar: 'parameters' })}`);
  }
  const copy = JSON.parse(key) as Record<string, unknown>;
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(copy);
  } catch (err) {
    throw new InvalidJsonSchemaError(`not a usable JSON Schema: ${(err as Error).message}`);
  } finally {
    ajv.removeSchema(copy);
  }
  if ((validate as { $async?: boolean }).$async) throw new InvalidJsonSchemaError('`$async` schemas are not supported');
  if (validators.size >= VALIDATOR_CACHE_MAX) validators.delete(validators.keys().next().value!);
  validators.set(key, validate);
  return validate;
}

const skillName = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{1,39}$/, 'must be 2-40 of a-z 0-9 _ - starting with a letter')
  .refine((n) => !n.includes(TOOL_NAME_SEPARATOR), 'must not contain "__" (it separates skill and tool in the names the model sees)')
  .meta({ description: 'slug naming the skill; the tools the model sees are called `<name>__<tool name>`', example: 'weather' });

const semver = z
  .string()
  .max(50)
  .regex(/^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/, 'must be a version x.y.z')
  .meta({ description: 'semantic version `x.y.z`; a tenant installs one name+version once', example: '1.0.0' });

const toolName = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,39}$/, 'must be 1-40 of a-z 0-9 _ starting with a letter')
  .meta({ example: 'current_weather' });

const toolParameters = z
  .record(z.string(), z.unknown())
  .superRefine((schema, ctx) => {
    if (schema.type !== 'object') {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON Schema of type "object"' });
      return;
    }
    if (JSON.stringify(schema).length > PARAMETERS_MAX_CHARS) {
      ctx.addIssue({ code: 'custom', message: `must be at most ${PARAMETERS_MAX_CHARS} characters as JSON` });
      return;
    }
    try {
      argumentValidator(schema);
    } catch (err) {
      if (!(err instanceof InvalidJsonSchemaError)) throw err;
      ctx.addIssue({ code: 'custom', message: err.message });
    }
  })
  .meta({
    description:
      'JSON Schema (draft-07) of the arguments, `type: "object"`, self-contained (no `$id`; `$ref` only within it), ' +
      `at most ${PARAMETERS_MAX_CHARS} characters. Shown to the model as is; every call's arguments are validated against it.`,
    example: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  });

/** Header names that carry credentials or that the HTTP client sets itself. */
const REFUSED_HEADER =
  /^(host|content-length|content-type|transfer-encoding|connection|keep-alive|upgrade|te|trailer|cookie|set-cookie)$|auth|token|secret|passw|api[-_]?key|signature/i;

const headers = z
  .record(
    z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/, 'header names are 1-64 token characters'),
    z
      .string()
      .max(1000)
      .regex(/^[\t\x20-\x7e]*$/, 'header values are printable ASCII'),
  )
  .superRefine((h, ctx) => {
    const names = Object.keys(h);
    if (names.length > 16) ctx.addIssue({ code: 'custom', message: 'at most 16 headers' });
    for (const name of names) {
      if (REFUSED_HEADER.test(name)) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: 'is not allowed: credentials are never stored in a skill, and the client sets transport headers itself',
        });
      }
    }
  })
  .meta({
    description:
      'Fixed, non-secret request headers, stored and shown back as given. Names that carry credentials (Authorization, ' +
      'Cookie, anything with auth, token, secret, password, api-key or signature) and transport headers (Host, ' +
      'Content-Type, Content-Length, ...) are refused.',
  });

const httpUrl = httpUrlText.meta({
  description:
    'http(s) URL without credentials. Private, loopback and reserved addresses are refused at install and at every ' +
    'call unless the installation sets ALLOW_PRIVATE_URLS. Redirects are not followed.',
  example: 'https://api.example.com/v1/weather',
});

const skillHttp = z
  .object({
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
    url: httpUrl,
    headers: headers.default({}),
    timeout_ms: z.number().int().min(100).max(30_000).default(10_000).meta({ description: 'whole request, 100-30000 ms; default 10000' }),
  })
  .strict()
  .meta({
    id: 'SkillToolHttp',
    description:
      'The request one call makes. GET and DELETE put the arguments in the query string (strings, numbers and booleans ' +
      'as they are, arrays as repeated parameters, objects as JSON text, nulls left out); the other methods send them ' +
      'as a JSON body. A 2xx answer is the tool result (JSON parsed; other content as `{text}`; at most 64 KiB); ' +
      'any other status, a refused address or a network failure is reported to the model as the tool result.',
  });

const skillTool = z
  .object({
    name: toolName,
    description: z.string().trim().min(1).max(2000).meta({ description: 'what the tool does, for the model' }),
    parameters: toolParameters,
    http: skillHttp,
  })
  .strict()
  .meta({ id: 'SkillTool' });

const skillManifest = z
  .object({
    name: skillName,
    version: semver,
    description: z.string().max(2000).default(''),
    instructions: z
      .string()
      .max(20_000)
      .default('')
      .meta({ description: "added to the agent's system prompt on sessions where the skill is active" }),
    tools: z
      .array(skillTool)
      .max(16)
      .default([])
      .superRefine((tools, ctx) => {
        const seen = new Set<string>();
        tools.forEach((tool, i) => {
          if (seen.has(tool.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `tool name ${tool.name} is used twice` });
          seen.add(tool.name);
        });
      })
      .meta({ description: 'at most 16 tools, names unique within the skill' }),
  })
  .strict()
  .superRefine((m, ctx) => {
    m.tools.forEach((tool, i) => {
      if (modelToolName(m.name, tool.name).length > MODEL_TOOL_NAME_MAX) {
        ctx.addIssue({
          code: 'custom',
          path: ['tools', i, 'name'],
          message: `"${modelToolName(m.name, tool.name)}" (skill name, "__", tool name) is longer than ${MODEL_TOOL_NAME_MAX} characters`,
        });
      }
    });
  })
  .meta({ id: 'SkillManifest' });

export const installSkillBody = z
  .object({ manifest: skillManifest })
  .strict()
  .meta({
    id: 'InstallSkillRequest',
    description:
      'The manifest is wrapped in `manifest`. A tenant installs each name+version once (again: 10005); another version ' +
      'of the same name is a separate skill.',
  });

export const skill = z
  .object({
    skill_id: skillId,
    name: z.string(),
    version: z.string(),
    description: z.string(),
    instructions: z.string(),
    tools: z.array(skillTool),
    created_at: isoDate,
  })
  .meta({ id: 'Skill' });

export const skillPage = pageOf(skill, 'SkillPage');
export const skillParams = z.object({ skill_id: skillId }).strict();

export const activateSkillBody = z
  .object({ session_id: referenceTo('ses', 'session id') })
  .strict()
  .meta({ id: 'ActivateSkillRequest', description: 'an active session of the tenant (archived: 10005)' });

export const skillActivation = z
  .object({
    session_id: sessionId,
    skill_id: skillId,
    active_skill_ids: z.array(skillId).meta({ description: 'every skill active on the session, in activation order' }),
  })
  .meta({ id: 'SkillActivation' });

export type SkillManifest = z.infer<typeof skillManifest>;
export type SkillTool = z.infer<typeof skillTool>;
export type Skill = z.infer<typeof skill>;

export function modelToolName(skillNameText: string, toolNameText: string): string {
  return `${skillNameText}${TOOL_NAME_SEPARATOR}${toolNameText}`;
}
