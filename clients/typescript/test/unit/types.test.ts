/** What the methods are typed to answer (checked by the type-check, `npm run typecheck`; nothing is sent). */
import { describe, expect, expectTypeOf, test } from 'vitest';
import type { AgentsDeleteParams, Combo, CompletionCreateParams, CompletionReply, CompletionStream, RunAccepted } from '../../src/index';

/** Never called: its expectations are checked by the compiler. */
function completionsCreate(client: Combo, flag: boolean, params: CompletionCreateParams) {
  const c = client.completions;
  const q = { session_id: 'ses_1', question: 'q' };
  // Literals (or nothing): one type.
  expectTypeOf(c.create('agt', q)).resolves.toEqualTypeOf<CompletionReply>();
  expectTypeOf(c.create('agt', { ...q, stream: false, wait: true })).resolves.toEqualTypeOf<CompletionReply>();
  expectTypeOf(c.create('agt', { ...q, stream: true })).resolves.toEqualTypeOf<CompletionStream>();
  expectTypeOf(c.create('agt', { ...q, background: true })).resolves.toEqualTypeOf<RunAccepted>();
  expectTypeOf(c.create('agt', { ...q, wait: false })).resolves.toEqualTypeOf<CompletionReply | RunAccepted>();
  // `boolean` variables: the union of what they may give.
  expectTypeOf(c.create('agt', { ...q, stream: flag })).resolves.toEqualTypeOf<CompletionReply | CompletionStream>();
  expectTypeOf(c.create('agt', { ...q, background: flag })).resolves.toEqualTypeOf<CompletionReply | RunAccepted>();
  expectTypeOf(c.create('agt', { ...q, wait: flag })).resolves.toEqualTypeOf<CompletionReply | RunAccepted>();
  expectTypeOf(c.create('agt', { ...q, stream: flag, background: true })).resolves.toEqualTypeOf<CompletionStream | RunAccepted>();
  expectTypeOf(c.create('agt', { ...q, stream: flag, wait: flag })).resolves.toEqualTypeOf<
    CompletionReply | RunAccepted | CompletionStream
  >();
  expectTypeOf(c.create('agt', params)).resolves.toEqualTypeOf<CompletionReply | RunAccepted | CompletionStream>();
  // follow: the reply.
  expectTypeOf(c.follow('trc_1')).resolves.toEqualTypeOf<CompletionReply>();
}

// A query flag (a string enum of "true" and "false" in the document) is a boolean.
expectTypeOf<AgentsDeleteParams['cascade']>().toEqualTypeOf<boolean | undefined>();

describe('types', () => {
  test('completions.create answers what its flags may give (see the type-check)', () => {
    expect(typeof completionsCreate).toBe('function');
  });
});
