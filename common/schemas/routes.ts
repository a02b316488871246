import { z } from 'zod';

/** `@scenario@processor@mode@`: three non-empty lowercase segments. Meaning is defined by the completions issue. */
export const routeString = z
  .string()
  .regex(/^@[a-z0-9_-]+@[a-z0-9_-]+@[a-z0-9_-]+@$/, 'must have the form @scenario@processor@mode@')
  .meta({ example: '@chat@llm@default@' });
