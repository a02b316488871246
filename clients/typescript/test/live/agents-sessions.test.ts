import { describe, expect, test } from 'vitest';
import { NotFoundError, Page, type Agent } from '../../src/index';
import { newClient, tag } from '../support/client';

const client = newClient();

describe('agents', () => {
  test('create, get, update, delete; withResponse gives status, trace id and rate limits', async () => {
    const { data: agent, response } = await client.agents
      .create({ name: `helper-${tag()}`, instructions: 'Answer briefly.' })
      .withResponse();
    expect(agent.agent_id).toMatch(/^agt_/);
    expect(response.status).toBe(200);
    expect(response.traceId).toMatch(/^trc_/);
    const rateLimit = response.rateLimit!;
    expect([rateLimit.limit, rateLimit.remaining, rateLimit.reset].every(Number.isFinite)).toBe(true);
    expect(rateLimit.remaining).toBeLessThan(rateLimit.limit);

    expect((await client.agents.get(agent.agent_id)).name).toBe(agent.name);
    const updated = await client.agents.update(agent.agent_id, { description: 'updated', metadata: { team: 'qa' } });
    expect(updated).toMatchObject({ description: 'updated', metadata: { team: 'qa' }, instructions: 'Answer briefly.' });
    expect(await client.agents.delete(agent.agent_id, { cascade: true })).toEqual({ deleted: true });
    await expect(client.agents.get(agent.agent_id)).rejects.toBeInstanceOf(NotFoundError);
  });

  test('a list iterates every item of every page', async () => {
    const prefix = `paged-${tag()}`;
    const created: Agent[] = [];
    for (let i = 0; i < 3; i++) created.push(await client.agents.create({ name: `${prefix}-${i}` }));

    const first = await client.agents.list({ page_size: 2 });
    expect(first).toBeInstanceOf(Page);
    expect(first.items).toHaveLength(2);
    expect(first.page_size).toBe(2);
    expect(first.hasNextPage()).toBe(true);

    const seen: string[] = [];
    for await (const agent of client.agents.list({ page_size: 2 })) seen.push(agent.agent_id);
    expect(seen).toHaveLength(first.total);
    expect(new Set(seen).size).toBe(seen.length);
    for (const agent of created) expect(seen).toContain(agent.agent_id);
    // Narrowed on the server by a part of the name, ignoring case.
    const named = await client.agents.list({ name: `${prefix}-1`.toUpperCase() });
    expect(named.items.map((a) => a.agent_id)).toEqual([created[1]!.agent_id]);

    let pages = 0;
    for await (const page of first.iterPages()) {
      pages++;
      expect(page.items.length).toBeLessThanOrEqual(2);
    }
    expect(pages).toBe(Math.ceil(first.total / 2));
    for (const agent of created) await client.agents.delete(agent.agent_id);
  });
});

describe('sessions and messages', () => {
  test('create, list, get, archive, delete; messages create, list, get', async () => {
    const agent = await client.agents.create({ name: `sessions-${tag()}` });
    const session = await client.sessions.create(agent.agent_id, { name: 'first', metadata: { source: 'test' } });
    expect(session).toMatchObject({ agent_id: agent.agent_id, status: 'active', name: 'first' });
    const bare = await client.sessions.create(agent.agent_id);
    expect(bare.session_id).toMatch(/^ses_/);

    const listed = await client.sessions.list(agent.agent_id, { page_size: 10 });
    expect(listed.items.map((s) => s.session_id).sort()).toEqual([session.session_id, bare.session_id].sort());
    // The tenant-wide list, narrowed to the agent.
    const all = await client.sessions.listAll({ agent_id: agent.agent_id, status: 'active' });
    expect(all.items.map((s) => s.session_id).sort()).toEqual([session.session_id, bare.session_id].sort());
    expect((await client.sessions.get(session.session_id)).metadata).toEqual({ source: 'test' });

    const message = await client.sessions.messages.create(session.session_id, { content: 'remember this', role: 'user' });
    expect(message).toMatchObject({ session_id: session.session_id, role: 'user', content: 'remember this' });
    const messages = [];
    for await (const m of client.sessions.messages.list(session.session_id)) messages.push(m);
    expect(messages.map((m) => m.message_id)).toEqual([message.message_id]);
    expect(await client.sessions.messages.get(session.session_id, message.message_id)).toEqual(message);

    expect((await client.sessions.archive(session.session_id)).status).toBe('archived');
    expect(await client.sessions.delete(bare.session_id)).toEqual({ deleted: true });
    await client.agents.delete(agent.agent_id);
  });
});
