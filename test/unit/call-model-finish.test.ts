import type { ProviderConnection } from '../../common/model-provider';
import { MockActivityEnvironment } from '@temporalio/testing';
import { type CallModelInput, type CallModelResult, createLlmActivities, type RecordedRun } from '../../activities/llm';
import type { FinishRunInput } from '../../completion/run-endings';
import type { RunContext, RunRoute } from '../../completion/run-input';
import type { ChatModelClient, ChatResult } from '../../common/chat-model';
import type { EventLog } from '../../stores/event-log';
import type { RunEventStore } from '../../stores/run-events';

/**
 * The answering model call records the run itself, falls back to the workflow's finishRun when that
 * fails, and on a retry after a recorded answer does not ask the model again.
 */
const ctx: RunContext = { traceId: 'trc_1', tenantId: 'default', agentId: 'agt_1', sessionId: 'ses_1', stream: false };
const route: RunRoute = { text: '@chat@llm@default@', scenario: 'chat', processor: 'llm', mode: 'default', usesModel: true };
const answer = (content: string, toolCalls: ChatResult['toolCalls'] = []): ChatResult => ({
  content,
  toolCalls,
  finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
  model: 'm',
  usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15, estimated: false },
});
const input = (): CallModelInput => ({
  ctx,
  seq: 1,
  step: 2,
  request: { model: 'm', messages: [{ role: 'user', content: 'q' }] },
  finishIfAnswered: {
    question: 'q',
    reference: [],
    artifacts: [],
    offline: false,
    route,
    stopReason: 'answered',
    requestedAt: 0,
    userId: 'u',
    sources: ['question'],
    tokensBefore: 100,
  },
});
const connection: ProviderConnection = {
  providerId: null,
  kind: 'openai-compatible',
  baseUrl: 'http://model.test/v1',
  headers: {},
  models: [],
};

// Neither store is reached by a non-streaming call that asks for no tools.
const unused = new Proxy(
  {},
  {
    get: () => {
      throw new Error('not expected to be used');
    },
  },
);

function activities(
  chat: ChatModelClient,
  overrides: {
    record?: (i: FinishRunInput) => Promise<{ artifacts: []; cost: { tokens: number; duration_ms: number } }>;
    recorded?: RecordedRun | null;
    models?: ProviderConnection['models'];
  } = {},
) {
  const recorded: FinishRunInput[] = [];
  const acts = createLlmActivities({
    chats: { forProvider: async () => ({ client: chat, connection: { ...connection, models: overrides.models ?? [] } }) },
    runEvents: unused as RunEventStore,
    eventLog: unused as EventLog,
    recordFinishedRun: async (i) => {
      recorded.push(i);
      return overrides.record ? overrides.record(i) : { artifacts: [], cost: { tokens: i.tokens, duration_ms: 7 } };
    },
    recordedRun: async () => overrides.recorded ?? null,
  });
  return { acts, recorded };
}

type Acts = ReturnType<typeof createLlmActivities>;
const call = (acts: Acts, i: CallModelInput, attempt = 1) =>
  new MockActivityEnvironment({ attempt }).run<[CallModelInput], CallModelResult, Acts['callModel']>((input) => acts.callModel(input), i);

describe('callModel records the run it answers', () => {
  it('records an answer with the run so far and says so', async () => {
    const { acts, recorded } = activities({ complete: async () => answer('Paris.') });
    const out = await call(acts, input());
    expect(out.finished).toEqual({ artifacts: [], cost: { tokens: 115, duration_ms: 7 } });
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({
      answer: 'Paris.',
      model: 'm',
      tokens: 115,
      stopReason: 'answered',
      answerStep: { step: 2, confidence: 1 },
      ctx,
    });
  });

  it('records nothing when the model asks for tools, or when not asked to', async () => {
    const toolCall = answer('', [{ id: 'c1', name: 'search', arguments: '{}' }]);
    // A tool step writes its agent.step event: this one gets a log that takes it.
    const tools = createLlmActivities({
      chats: { forProvider: async () => ({ client: { complete: async () => toolCall }, connection }) },
      runEvents: unused as RunEventStore,
      eventLog: { appendMany: async () => undefined } as unknown as EventLog,
      recordFinishedRun: async () => {
        throw new Error('must not record');
      },
    });
    expect((await call(tools, input())).finished).toBeUndefined();
    const { acts, recorded } = activities({ complete: async () => answer('Paris.') });
    const { finishIfAnswered: _, ...plain } = input();
    expect((await call(acts, plain)).finished).toBeUndefined();
    expect(recorded).toHaveLength(0);
  });

  it('leaves the recording to the workflow when it fails, without failing the call', async () => {
    const { acts, recorded } = activities(
      { complete: async () => answer('Paris.') },
      {
        record: async () => {
          throw new Error('database unreachable');
        },
      },
    );
    const out = await call(acts, input());
    expect(recorded).toHaveLength(1);
    expect(out.finished).toBeUndefined();
    expect(out.result.content).toBe('Paris.');
  });

  it('on a retry after a recorded answer, records that answer again without asking the model', async () => {
    let asked = 0;
    // The earlier attempt recorded the answer (in the run record or only in the session) and died.
    const earlier: RecordedRun = { answer: 'Paris.', model: 'm', tokens: 115 };
    const { acts, recorded } = activities({ complete: async () => (asked++, answer('Lyon.')) }, { recorded: earlier });
    const out = await call(acts, input(), 2);
    expect(asked).toBe(0);
    // Recording it again completes whatever the lost attempt had not written, with the same answer and tokens.
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ answer: 'Paris.', model: 'm', tokens: 115, stopReason: 'answered', ctx });
    expect(out.finished).toEqual({ artifacts: [], cost: { tokens: 115, duration_ms: 7 } });
    expect(out.result).toMatchObject({ content: 'Paris.', toolCalls: [], usage: { totalTokens: 15 } });
    // A first attempt never looks: the model is asked.
    await call(acts, input());
    expect(asked).toBe(1);
  });
});

describe("callModel prices the call at its model's price", () => {
  // 10 input tokens at 2 and 5 output tokens at 4 per million: 0.00004.
  const priced = [{ id: 'm', inputPricePerMillion: 2, outputPricePerMillion: 4 }];
  const spentBefore = { inputTokens: 60, outputTokens: 40, amount: 0.0001 };
  const withSpend = (): CallModelInput => ({ ...input(), finishIfAnswered: { ...input().finishIfAnswered!, spentBefore } });

  it("returns the call's amount and records the run's split and money with the answer", async () => {
    const { acts, recorded } = activities({ complete: async () => answer('Paris.') }, { models: priced });
    const out = await call(acts, withSpend());
    expect(out.amount).toBeCloseTo(0.00004, 12);
    expect(recorded[0]).toMatchObject({ tokens: 115, spent: { inputTokens: 70, outputTokens: 45, amount: 0.00014 } });
  });

  it('has no amount for a model the provider offers without a price, or does not list', async () => {
    for (const models of [[], [{ id: 'other', inputPricePerMillion: 1 }], [{ id: 'm' }]]) {
      const { acts, recorded } = activities({ complete: async () => answer('Paris.') }, { models });
      const out = await call(acts, withSpend());
      expect(out.amount).toBeNull();
      expect(recorded[0]!.spent).toEqual({ inputTokens: 70, outputTokens: 45, amount: 0.0001 });
    }
  });

  it('records tokens only for a call a workflow from before the split scheduled', async () => {
    const { acts, recorded } = activities({ complete: async () => answer('Paris.') }, { models: priced });
    const out = await call(acts, input());
    expect(out.amount).toBeCloseTo(0.00004, 12);
    expect(recorded[0]!.tokens).toBe(115);
    expect(recorded[0]!.spent).toBeUndefined();
  });

  it('on a retry after a recorded answer, records its split and money again and returns the call as the difference', async () => {
    const earlier: RecordedRun = { answer: 'Paris.', model: 'm', tokens: 115, inputTokens: 70, outputTokens: 45, amount: 0.00014 };
    const { acts, recorded } = activities({ complete: async () => answer('Lyon.') }, { recorded: earlier, models: priced });
    const out = await call(acts, withSpend(), 2);
    expect(recorded[0]!.spent).toEqual({ inputTokens: 70, outputTokens: 45, amount: 0.00014 });
    expect(out.result.usage).toMatchObject({ promptTokens: 10, completionTokens: 5, totalTokens: 15 });
    expect(out.amount).toBeCloseTo(0.00004, 12);
  });
});
