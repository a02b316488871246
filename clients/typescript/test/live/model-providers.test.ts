/** Model providers: create, list, get, check, update, delete; agents naming one. */
import { describe, expect, test } from 'vitest';
import { ConflictError, NotFoundError, ValidationError } from '../../src/index';
import { newClient, tag } from '../support/client';

const client = newClient();
const MODEL_URL = process.env.COMBO_SCRIPTED_MODEL_URL ?? '';

describe('model providers', () => {
  test('create, list, get, check, update, delete; one that agents name is not deleted', async () => {
    expect(MODEL_URL, 'COMBO_SCRIPTED_MODEL_URL names the scripted model the service test starts').not.toBe('');
    const provider = await client.modelProviders.create({
      name: `ts-provider-${tag()}`,
      kind: 'openai-compatible',
      base_url: MODEL_URL,
      api_key: 'sk-typescript-client-5678',
      headers: { 'X-Route': 'secret-route' },
      models: [{ id: 'scripted-model', output_price_per_million: 2 }, { id: 'other-model' }],
    });
    expect(provider).toMatchObject({ api_key_last4: '5678', header_names: ['X-Route'], base_url: MODEL_URL });
    const ids = [];
    for await (const p of client.modelProviders.list({ name: provider.name })) ids.push(p.provider_id);
    expect(ids).toEqual([provider.provider_id]);
    expect((await client.modelProviders.get(provider.provider_id)).models[0]).toEqual({
      id: 'scripted-model',
      output_price_per_million: 2,
    });

    const checked = await client.modelProviders.check(provider.provider_id, { model: 'scripted-model' });
    expect(checked).toMatchObject({ ok: true, model: 'scripted-model' });

    const agent = await client.agents.create({ name: `ts-on-provider-${tag()}`, model: { provider_id: provider.provider_id } });
    await expect(
      client.agents.update(agent.agent_id, { model: { provider_id: provider.provider_id, model: 'not-offered' } }),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(client.modelProviders.delete(provider.provider_id)).rejects.toBeInstanceOf(ConflictError);

    const keyless = await client.modelProviders.update(provider.provider_id, { api_key: null, headers: {} });
    expect(keyless).toMatchObject({ api_key_last4: null, header_names: [] });
    await client.agents.delete(agent.agent_id);
    expect(await client.modelProviders.delete(provider.provider_id)).toEqual({ deleted: true });
    await expect(client.modelProviders.get(provider.provider_id)).rejects.toBeInstanceOf(NotFoundError);
  });
});
