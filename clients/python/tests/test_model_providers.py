from __future__ import annotations

import os

import pytest

import combo
from conftest import unique


def scripted_model_url() -> str:
    url = os.environ.get("COMBO_SCRIPTED_MODEL_URL")
    if not url:
        pytest.fail("COMBO_SCRIPTED_MODEL_URL must name the scripted model the service's test starts (see tests/conftest.py)")
    return url


def test_model_providers(client: combo.Combo) -> None:
    provider = client.model_providers.create(
        name=unique("py-provider"),
        kind="openai-compatible",
        base_url=scripted_model_url(),
        api_key="sk-python-client-1234",
        headers={"X-Route": "secret-route"},
        models=[{"id": "scripted-model", "input_price_per_million": 0.5}, {"id": "other-model"}],
    )
    assert (provider.api_key_last4, provider.header_names) == ("1234", ["X-Route"])
    assert provider.models[0].id == "scripted-model" and provider.models[0].input_price_per_million == 0.5
    assert provider.provider_id in [p.provider_id for p in client.model_providers.list(name=provider.name)]
    assert client.model_providers.get(provider.provider_id).base_url == scripted_model_url()

    checked = client.model_providers.check(provider.provider_id)
    assert checked.ok is True and checked.model == "scripted-model" and checked.latency_ms >= 0

    agent = client.agents.create(name=unique("py-on-provider"), model={"provider_id": provider.provider_id, "model": "other-model"})
    assert agent.model.provider_id == provider.provider_id
    with pytest.raises(combo.ValidationError):
        client.agents.update(agent.agent_id, model={"provider_id": provider.provider_id, "model": "not-offered"})
    with pytest.raises(combo.ConflictError):
        client.model_providers.delete(provider.provider_id)

    keyless = client.model_providers.update(provider.provider_id, api_key=None, models=[{"id": "other-model"}])
    assert keyless.api_key_last4 is None and [m.id for m in keyless.models] == ["other-model"]
    assert client.agents.delete(agent.agent_id).deleted is True
    assert client.model_providers.delete(provider.provider_id).deleted is True
    with pytest.raises(combo.NotFoundError):
        client.model_providers.get(provider.provider_id)
