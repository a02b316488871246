/** API keys, the event log, costs, catalogues, skills, the service's own routes. */
import { describe, expect, test } from 'vitest';
import { AuthenticationError } from '../../src/index';
import { eventually, newClient, tag } from '../support/client';

const client = newClient();

describe('api keys', () => {
  test('create, list, revoke; a revoked key no longer works', async () => {
    const created = await client.apiKeys.create({ name: `ci-${tag()}`, role: 'admin' });
    expect(created.api_key).toMatch(/^combo_/);
    const other = newClient({ apiKey: created.api_key });
    expect((await other.service.health()).status).toBe('ok');
    await expect(other.agents.list()).resolves.toBeDefined();
    const ids = [];
    for await (const key of client.apiKeys.list()) ids.push(key.key_id);
    expect(ids).toContain(created.key_id);
    expect((await client.apiKeys.revoke(created.key_id)).revoked_at).not.toBeNull();
    await expect(other.agents.list()).rejects.toBeInstanceOf(AuthenticationError);
  });

  test('keys are personal; a key is exchanged for a console token, which renews itself and ends with its key', async () => {
    const owner = `user-${tag()}`;
    const created = await client.apiKeys.create({ name: `mine-${tag()}`, role: 'member', owner_id: owner });
    expect(created.owner_id).toBe(owner);
    const member = newClient({ apiKey: created.api_key });
    const own = [];
    for await (const key of member.apiKeys.list()) own.push(key.key_id);
    expect(own).toEqual([created.key_id]);
    const token = await member.auth.consoleToken();
    expect(token).toMatchObject({ key_id: created.key_id, user_id: owner, roles: ['member'], token_type: 'Bearer' });
    const console = newClient({ apiKey: token.token });
    expect((await console.auth.consoleToken()).key_id).toBe(created.key_id);
    await client.apiKeys.revoke(created.key_id);
    await expect(console.agents.list()).rejects.toBeInstanceOf(AuthenticationError);
  });
});

describe('events, costs, catalogues, service', () => {
  test('the event log lists a session.created', async () => {
    const agent = await client.agents.create({ name: `events-${tag()}` });
    const session = await client.sessions.create(agent.agent_id);
    const event = await eventually(async () => {
      for await (const e of client.events.list({ event: 'session.created', page_size: 50 }))
        if (e.data.session_id === session.session_id) return e;
      return undefined;
    });
    expect(event).toMatchObject({ event: 'session.created', tenant_id: 'default' });
    await client.agents.delete(agent.agent_id);
  });

  test('costs: get and set the threshold', async () => {
    const byAgent = await client.costs.get({ group_by: 'agent', since: new Date(Date.now() - 86_400_000).toISOString() });
    expect(byAgent.group_by).toBe('agent');
    expect(Array.isArray(byAgent.groups)).toBe(true);
    const summary = await client.costs.get();
    expect(summary.period).toMatch(/^\d{4}-\d{2}$/);
    expect((await client.costs.get({ period: summary.period })).period).toBe(summary.period);
    const set = await client.costs.setThreshold({ threshold_tokens: 1_000_000 });
    expect(set).toMatchObject({ threshold_tokens: 1_000_000, threshold_source: 'tenant' });
    expect((await client.costs.setThreshold({ threshold_tokens: null })).threshold_tokens).toBeNull();
    // The money threshold alone: the token threshold stays as set (off).
    const money = await client.costs.setThreshold({ threshold_amount: 12.5 });
    expect(money).toMatchObject({ threshold_amount: 12.5, threshold_amount_source: 'tenant', threshold_tokens: null });
    expect(summary.amount).toBeGreaterThanOrEqual(0);
    expect((await client.costs.resetThreshold()).threshold_source).not.toBe('tenant');
  });

  test('scenarios, processors, health, readiness, the OpenAPI document', async () => {
    expect((await client.scenarios.list()).items.map((s) => s.scenario_id)).toEqual(expect.arrayContaining(['chat', 'kbqa', 'agent']));
    expect((await client.processors.list()).items.map((p) => p.processor_id)).toEqual(expect.arrayContaining(['llm', 'extractive']));
    // Health and the document need no key: a client whose key would be refused reads them.
    const anonymous = newClient({ apiKey: 'combo_00000000_00000000000000000000000000000000' });
    expect(await anonymous.service.health()).toMatchObject({ status: 'ok' });
    expect(await client.service.ready()).toMatchObject({ status: 'ready' });
    const doc = await anonymous.service.openapi();
    expect(doc.openapi).toMatch(/^3\.1/);
  });
});

describe('skills', () => {
  test('install, list, get, activate on a session, delete', async () => {
    const name = `weather${tag().replace(/[^a-z]/g, '')}`.slice(0, 30);
    const skill = await client.skills.install({
      manifest: {
        name,
        version: '1.0.0',
        description: 'Weather lookups',
        instructions: 'Use the weather tool for weather questions.',
        tools: [
          {
            name: 'current_weather',
            description: 'Current weather in a city',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
            http: { method: 'GET', url: 'http://127.0.0.1:9/weather' },
          },
        ],
      },
    });
    expect(skill).toMatchObject({ name, version: '1.0.0' });
    const ids = [];
    for await (const s of client.skills.list()) ids.push(s.skill_id);
    expect(ids).toContain(skill.skill_id);
    expect((await client.skills.get(skill.skill_id)).tools[0]?.name).toBe('current_weather');

    const agent = await client.agents.create({ name: `skills-${tag()}` });
    const session = await client.sessions.create(agent.agent_id);
    const activation = await client.skills.activate(skill.skill_id, { session_id: session.session_id });
    expect(activation.active_skill_ids).toEqual([skill.skill_id]);
    await client.agents.delete(agent.agent_id);
    expect(await client.skills.delete(skill.skill_id)).toEqual({ deleted: true });
  });
});
