/** What the console shows of a failed call: the API's message, code, `data.field` and trace id. */
import { APIConnectionError, APIUserAbortError, ComboError } from '@combo/client';

export interface ErrorDetails {
  message: string;
  code?: number;
  field?: string;
  traceId?: string;
  status?: number;
}

export function errorDetails(error: unknown): ErrorDetails {
  if (error instanceof APIUserAbortError) return { message: 'The request was cancelled.' };
  if (error instanceof APIConnectionError) return { message: `The service did not answer: ${error.message}` };
  if (error instanceof ComboError) {
    const field = typeof error.data.field === 'string' ? error.data.field : undefined;
    return { message: error.message, code: error.code, field, traceId: error.traceId, status: error.status };
  }
  return { message: error instanceof Error ? error.message : String(error) };
}

/** True for an error the API answered with one of these codes. */
export const hasCode = (error: unknown, ...codes: number[]): boolean =>
  error instanceof ComboError && error.code !== undefined && codes.includes(error.code);

/** The API's field name without its place (`body.name` → `name`), to mark the form control it names. */
export function fieldOf(error: unknown, where = 'body'): string | undefined {
  const field = errorDetails(error).field;
  return field?.startsWith(`${where}.`) ? field.slice(where.length + 1) : undefined;
}
