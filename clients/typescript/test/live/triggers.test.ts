/** Integrations and signed inbound calls, event triggers, cron jobs. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AuthenticationError, ConflictError, NotFoundError, type Agent } from '../../src/index';
import { eventually, newClient, tag } from '../support/client';

const client = newClient();
// Inbound calls carry no API key (signed instead): a client with a key that would be refused sends them.
const sender = newClient({ apiKey: 'combo_00000000_00000000000000000000000000000000' });
let agent: Agent;

beforeAll(async () => {
  agent = await client.agents.create({ name: `triggers-${tag()}` });
});
afterAll(async () => {
  await client.agents.delete(agent.agent_id, { cascade: true });
});

describe('integrations and inbound calls', () => {
  test('a channel integration: signed sends, duplicates, a wrong secret; list, get, rotate, delete', async () => {
    const integration = await client.integrations.create({ channel: 'git-b', name: `github-${tag()}` });
    expect(integration.webhook_url).toContain(integration.integration_id);
    const payload = { ref: 'refs/heads/main', repository: { full_name: 'acme/app', html_url: 'https://example.com/acme/app' } };
    const options = {
      integrationId: integration.integration_id,
      secret: integration.secret,
      eventId: `evt-${tag()}`,
      headers: { 'X-GitHub-Event': 'push' },
    };

    const accepted = await sender.inbound.send('git-b', payload, options);
    expect(accepted).toMatchObject({ event_id: options.eventId, duplicate: false, source: 'git-b', event: 'push', project: 'acme/app' });
    expect((await sender.inbound.send('git-b', payload, options)).duplicate).toBe(true);
    await expect(
      sender.inbound.send('git-b', payload, { ...options, eventId: `evt-${tag()}`, secret: 'not-the-secret' }),
    ).rejects.toBeInstanceOf(AuthenticationError);

    const ids = [];
    for await (const i of client.integrations.list()) ids.push(i.integration_id);
    expect(ids).toContain(integration.integration_id);
    expect((await client.integrations.get(integration.integration_id)).channel).toBe('git-b');
    const rotated = await client.integrations.rotateSecret(integration.integration_id, { grace_seconds: 60 });
    expect(rotated.secret).not.toBe(integration.secret);
    // Within the grace both secrets sign.
    for (const secret of [integration.secret, rotated.secret])
      expect((await sender.inbound.send('git-b', payload, { ...options, secret, eventId: `evt-${tag()}` })).duplicate).toBe(false);
    expect(await client.integrations.delete(integration.integration_id)).toEqual({ deleted: true });
  });

  test('a generic event trigger started by a signed generic call; templates, list, get, update, delete', async () => {
    const templates = await client.eventTriggers.templates();
    expect(templates.items.map((t) => t.name)).toContain('default');
    const integration = await client.integrations.create({ channel: 'generic' });
    const trigger = await client.eventTriggers.create({
      name: `generic-${tag()}`,
      trigger: {
        source: 'generic',
        integration_id: integration.integration_id,
        match: { event: 'build.finished' },
        action: { agent_id: agent.agent_id, session_template: 'default', inputs: { project: '{{ event.project }}' } },
      },
    });
    expect(trigger.inbound_path).toContain(trigger.trigger_id);
    const preview = await client.eventTriggers.preview({
      trigger: trigger.trigger,
      payload: { event: 'build.finished', project: 'shop' },
      integration_id: integration.integration_id,
    });
    expect(preview).toMatchObject({ matches: true, would_start: true, task: { inputs: { project: 'shop' } } });

    const accepted = await sender.inbound.sendGeneric(
      trigger.trigger_id,
      { event: 'build.finished', project: 'acme/app' },
      { integrationId: integration.integration_id, secret: integration.secret },
    );
    expect(accepted).toMatchObject({ source: 'generic', event: 'build.finished', project: 'acme/app' });
    expect(accepted.tasks).toEqual([expect.objectContaining({ trigger_id: trigger.trigger_id, started: true })]);

    const ids = [];
    for await (const t of client.eventTriggers.list()) ids.push(t.trigger_id);
    expect(ids).toContain(trigger.trigger_id);
    expect((await client.eventTriggers.get(trigger.trigger_id)).name).toBe(trigger.name);
    expect((await client.eventTriggers.update(trigger.trigger_id, { enabled: false })).enabled).toBe(false);
    // The task's run shows up as a trigger run.
    await eventually(async () => {
      const runs = await client.runs.listForAgent(agent.agent_id, { kind: 'trigger' });
      return runs.items.length > 0 ? runs.items : undefined;
    });
    expect(await client.eventTriggers.delete(trigger.trigger_id)).toEqual({ deleted: true });
    await client.integrations.delete(integration.integration_id);
  });
});

describe('cron jobs', () => {
  test('deleting an agent a cron job runs: refused (10005) without cascade or with cascade: false; cascade: true deletes the job too', async () => {
    const target = await client.agents.create({ name: `cascade-${tag()}` });
    const job = await client.cronJobs.create({
      name: `cascade-${tag()}`,
      cron: '0 3 * * *',
      agent_id: target.agent_id,
      question: 'Hi',
      paused: true,
    });
    for (const params of [undefined, { cascade: false }]) {
      const error = await client.agents.delete(target.agent_id, params).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConflictError);
      expect(error).toMatchObject({ code: 10005, status: 409 });
    }
    expect(await client.agents.delete(target.agent_id, { cascade: true })).toEqual({ deleted: true });
    await expect(client.cronJobs.get(job.cron_id)).rejects.toBeInstanceOf(NotFoundError);
  });

  test('create, list, get, update, trigger, backfill, delete', async () => {
    const job = await client.cronJobs.create({
      name: `nightly-${tag()}`,
      cron: '0 3 * * *',
      agent_id: agent.agent_id,
      question: 'Summarise the day',
      paused: true,
    });
    expect(job).toMatchObject({ paused: true, timezone: 'UTC', schedule_exists: true });
    const ids = [];
    for await (const j of client.cronJobs.list()) ids.push(j.cron_id);
    expect(ids).toContain(job.cron_id);
    expect((await client.cronJobs.get(job.cron_id)).cron).toBe('0 3 * * *');
    expect((await client.cronJobs.update(job.cron_id, { paused: false })).paused).toBe(false);
    expect((await client.cronJobs.update(job.cron_id, { paused: true })).paused).toBe(true);
    const edited = await client.cronJobs.update(job.cron_id, { cron: '15 4 * * *', question: 'Anything new?' });
    expect(edited).toMatchObject({ cron: '15 4 * * *', question: 'Anything new?', paused: true });

    const triggered = await client.cronJobs.trigger(job.cron_id);
    expect(triggered.cron_id).toBe(job.cron_id);
    const day = 86_400_000;
    const midnight = Math.floor(Date.now() / day) * day;
    const backfill = await client.cronJobs.backfill(job.cron_id, {
      since: new Date(midnight - 2 * day).toISOString(),
      until: new Date(midnight).toISOString(),
    });
    expect(backfill).toMatchObject({ cron_id: job.cron_id, runs: 2, overlap: 'buffer_all' });
    expect(await client.cronJobs.delete(job.cron_id)).toEqual({ deleted: true });
  });
});
