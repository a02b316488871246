/**
 * A fetch that answers from a script (no service needed), recording each call with its body as sent
 * (a streamed body is read to its end, as a server would, before the step answers).
 */
export interface Call {
  url: string;
  method: string;
  headers: Headers;
  /** The body's bytes (empty without a body). */
  body: Uint8Array;
  at: number;
}

export type Step = Response | Error | ((signal: AbortSignal) => Promise<Response>);

async function bodyBytes(body: BodyInit | null | undefined): Promise<Uint8Array> {
  if (body === undefined || body === null) return new Uint8Array();
  return new Uint8Array(await new Response(body).arrayBuffer());
}

/** A fetch answering `steps` in order (the last one repeats), recording each call. */
export function scripted(steps: Step[]): { fetch: typeof fetch; calls: Call[] } {
  const calls: Call[] = [];
  const fetchImpl = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const call: Call = {
      url: typeof input === 'string' ? input : input instanceof URL ? input.href : input.url,
      method: init?.method ?? 'GET',
      headers: new Headers(init?.headers),
      body: new Uint8Array(),
      at: Date.now(),
    };
    calls.push(call);
    const step = steps[Math.min(calls.length - 1, steps.length - 1)]!;
    call.body = await bodyBytes(init?.body);
    if (step instanceof Error) throw step;
    if (typeof step === 'function') return step(init!.signal!);
    return step.clone();
  };
  return { fetch: fetchImpl, calls };
}

/** A reply in the service's envelope. */
export const envelope = (status: number, code: number, data: unknown = {}, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ code, data, message: code === 0 ? 'ok' : 'failed' }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });

/** A success reply carrying `data`. */
export const ok = (data: unknown) => envelope(200, 0, data);
