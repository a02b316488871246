/**
 * A tool call's arguments as the model wrote them (JSON text, possibly malformed), read as the
 * object a tool takes, or why they are not one. Pure: the workflow reads them too.
 */
export function readToolArguments(text: string): { args: Record<string, unknown> } | { error: string } {
  let parsed: unknown;
  try {
    parsed = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    return { error: 'the arguments are not valid JSON' };
  }
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return { args: parsed as Record<string, unknown> };
  return { error: 'the arguments must be a JSON object' };
}
