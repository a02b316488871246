import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, test } from 'vitest';
import {
  APIConnectionError,
  APIError,
  AuthenticationError,
  ComboError,
  ConflictError,
  NotFoundError,
  PermissionDeniedError,
  UpstreamTimeoutError,
  ValidationError,
} from '../../src/index';
import { newClient, tag } from '../support/client';

const client = newClient();

describe('errors are typed by the envelope code', () => {
  test('10004: NotFoundError with status, trace id and data', async () => {
    const error = await client.agents.get('agt_doesnotexist').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toBeInstanceOf(APIError);
    expect(error).toBeInstanceOf(ComboError);
    const e = error as NotFoundError;
    expect(e).toMatchObject({ name: 'NotFoundError', code: 10004, status: 404 });
    expect(e.traceId).toMatch(/^trc_/);
    expect(e.headers?.get('x-trace-id')).toBe(e.traceId);
    expect(e.data.trace_id).toBe(e.traceId);
  });

  test('10001: ValidationError naming the field', async () => {
    const error = await client.agents.create({ name: 'x', model: { temperature: 7 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ code: 10001, status: 400, field: 'body.model.temperature' });
  });

  test('10002: AuthenticationError with a bad key', async () => {
    const error = await newClient({ apiKey: 'combo_00000000_00000000000000000000000000000000' })
      .agents.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ code: 10002, status: 401 });
  });

  test('10003: PermissionDeniedError for a member key on an admin route', async () => {
    const created = await client.apiKeys.create({ name: `member-${tag()}`, role: 'member' });
    const member = newClient({ apiKey: created.api_key });
    await expect(member.agents.list()).resolves.toBeDefined();
    const error = await member.events.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(error).toMatchObject({ code: 10003, status: 403 });
    await client.apiKeys.revoke(created.key_id);
  });

  test('10005: ConflictError (an archived session refuses completions)', async () => {
    const agent = await client.agents.create({ name: `conflict-${tag()}` });
    const session = await client.sessions.create(agent.agent_id);
    await client.sessions.archive(session.session_id);
    const error = await client.completions
      .create(agent.agent_id, { session_id: session.session_id, question: 'Hi' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toMatchObject({ code: 10005, status: 409 });
    await client.agents.delete(agent.agent_id);
  });

  test('30002: UpstreamTimeoutError when a tool times out, from a JSON completion and from a stream', async () => {
    // The tool's endpoint answers after 5 s; the tool allows 300 ms.
    const slow = createHttpServer((_req, res) => void setTimeout(() => res.end('{}'), 5_000).unref());
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const name = `slow${tag().replace(/[^a-z]/g, '')}`.slice(0, 30);
    const skill = await client.skills.install({
      manifest: {
        name,
        version: '1.0.0',
        description: 'A tool slower than its timeout',
        instructions: '',
        tools: [
          {
            name: 'wait',
            description: 'Waits',
            parameters: { type: 'object', properties: {} },
            http: { method: 'POST', url: `http://127.0.0.1:${(slow.address() as AddressInfo).port}/slow`, timeout_ms: 300 },
          },
        ],
      },
    });
    const agent = await client.agents.create({ name: `timeout-${tag()}` });
    try {
      const session = await client.sessions.create(agent.agent_id);
      await client.skills.activate(skill.skill_id, { session_id: session.session_id });
      const question = `wait [tool:${name}__wait]`;

      const error = await client.completions.create(agent.agent_id, { session_id: session.session_id, question }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UpstreamTimeoutError);
      expect(error).toMatchObject({ name: 'UpstreamTimeoutError', code: 30002, message: expect.stringContaining('timed out') as string });
      expect((error as UpstreamTimeoutError).traceId).toMatch(/^trc_/);

      const stream = await client.completions.stream(agent.agent_id, { session_id: session.session_id, question });
      const events = [];
      for await (const event of stream) events.push(event);
      expect(events.map((e) => e.event).slice(-2)).toEqual(['error', 'done']);
      expect(events.at(-2)).toMatchObject({ data: { code: 30002 } });
      const streamed = await stream.final().catch((e: unknown) => e);
      expect(streamed).toBeInstanceOf(UpstreamTimeoutError);
      expect(streamed).toMatchObject({ code: 30002, traceId: stream.traceId });
    } finally {
      slow.closeAllConnections();
      slow.close();
      await client.agents.delete(agent.agent_id, { cascade: true });
      await client.skills.delete(skill.skill_id);
    }
  });

  test('no service at the address: APIConnectionError after the retries, saying why (ECONNREFUSED and the address)', async () => {
    // A port that was just free: nothing listens on it.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));

    const error = await newClient({ baseURL: `http://127.0.0.1:${port}`, maxRetries: 1 })
      .service.health()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).toMatchObject({ code: undefined, status: undefined });
    const e = error as APIConnectionError;
    expect(e.message).toBe(`Connection error: connect ECONNREFUSED 127.0.0.1:${port}`);
    // The errors under it are kept: fetch's own, and the socket's.
    expect(e.cause).toBeInstanceOf(TypeError);
    expect((e.cause as Error).cause).toMatchObject({ code: 'ECONNREFUSED' });
  });
});
