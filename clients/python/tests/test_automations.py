from __future__ import annotations

import datetime as dt

import pytest

import combo
from conftest import unique


def test_integrations_triggers_and_inbound_calls(client: combo.Combo, agent: combo.Agent) -> None:
    integration = client.integrations.create(channel="generic", name=unique("generic"))
    assert integration.secret and integration.integration_id in [i.integration_id for i in client.integrations.list()]
    assert client.integrations.get(integration.integration_id).channel == "generic"

    assert client.event_triggers.templates().items
    trigger = client.event_triggers.create(
        name=unique("on-generic"),
        trigger={
            "source": "generic",
            "match": {"event": "deploy"},
            "action": {"agent_id": agent.agent_id, "session_template": "default", "inputs": {"who": "{{ event.actor }}"}},
        },
    )
    preview = client.event_triggers.preview(
        trigger=trigger.trigger, payload={"event": "deploy", "project": "shop", "actor": "ana", "url": "https://example.com/d/1"}
    )
    assert preview.matches and preview.would_start and preview.event.actor == "ana"
    assert preview.task is not None and preview.task.inputs == {"who": "ana"}
    assert client.event_triggers.get(trigger.trigger_id).name == trigger.name
    assert trigger.trigger_id in [t.trigger_id for t in client.event_triggers.list()]
    assert client.event_triggers.update(trigger.trigger_id, enabled=False).enabled is False
    client.event_triggers.update(trigger.trigger_id, enabled=True)

    event_id = unique("evt")
    payload = {"event": "deploy", "project": "shop", "actor": "ana", "url": "https://example.com/d/1"}
    accepted = client.inbound.send_generic(
        trigger.trigger_id, payload, integration_id=integration.integration_id, secret=integration.secret, event_id=event_id
    )
    assert accepted.duplicate is False and accepted.event == "deploy" and accepted.actor == "ana"
    again = client.inbound.send_generic(
        trigger.trigger_id, payload, integration_id=integration.integration_id, secret=integration.secret, event_id=event_id
    )
    assert again.duplicate is True
    with pytest.raises(combo.AuthenticationError):
        client.inbound.send_generic(trigger.trigger_id, payload, integration_id=integration.integration_id, secret="wrong")

    # A channel integration: GitHub's ping reaches the service signed; no trigger matches it.
    github = client.integrations.create(channel="git-b")
    ping = client.inbound.send(
        "git-b", {"zen": "Keep it simple.", "hook_id": 1}, integration_id=github.integration_id, secret=github.secret
    )
    assert ping.source == "git-b" and ping.tasks == []

    rotated = client.integrations.rotate_secret(integration.integration_id, grace_seconds=60)
    assert rotated.secret and rotated.secret != integration.secret
    assert client.event_triggers.delete(trigger.trigger_id).deleted is True
    for i in (integration, github):
        assert client.integrations.delete(i.integration_id).deleted is True


def test_cron_jobs(client: combo.Combo, agent: combo.Agent) -> None:
    job = client.cron_jobs.create(name=unique("digest"), cron="0 9 * * 1-5", agent_id=agent.agent_id, question="Summarise.", paused=True)
    assert job.next_run_times is not None
    assert client.cron_jobs.get(job.cron_id).cron == "0 9 * * 1-5"
    assert job.cron_id in [j.cron_id for j in client.cron_jobs.list()]
    assert client.cron_jobs.update(job.cron_id, paused=False).paused is False
    edited = client.cron_jobs.update(job.cron_id, cron="15 4 * * *", question="Anything new?")
    assert (edited.cron, edited.question, edited.paused) == ("15 4 * * *", "Anything new?", False)
    triggered = client.cron_jobs.trigger(job.cron_id)
    assert triggered.cron_id == job.cron_id
    now = dt.datetime.now(dt.timezone.utc)
    backfill = client.cron_jobs.backfill(job.cron_id, since=(now - dt.timedelta(days=3)).isoformat(), until=now.isoformat())
    assert backfill.runs >= 1
    assert client.cron_jobs.delete(job.cron_id).deleted is True


def test_skills(client: combo.Combo, agent: combo.Agent) -> None:
    skill = client.skills.install(
        manifest={
            "name": unique("weather").replace("-", ""),
            "version": "1.0.0",
            "tools": [
                {
                    "name": "forecast",
                    "description": "Tomorrow's forecast",
                    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
                    "http": {"method": "GET", "url": "https://example.com/forecast"},
                }
            ],
        }
    )
    assert client.skills.get(skill.skill_id).name == skill.name
    assert skill.skill_id in [s.skill_id for s in client.skills.list()]
    session = client.sessions.create(agent.agent_id)
    activation = client.skills.activate(skill.skill_id, session_id=session.session_id)
    assert skill.skill_id in activation.active_skill_ids
    assert client.skills.delete(skill.skill_id).deleted is True


def test_api_keys_events_costs_and_service(client: combo.Combo, base_url: str) -> None:
    created = client.api_keys.create(name=unique("ci"), role="member", owner_id=unique("user"))
    assert created.api_key.startswith("combo_")
    with combo.Combo(base_url=base_url, api_key=created.api_key) as member:
        assert member.service.health().status == "ok"
        member.agents.list()
        with pytest.raises(combo.PermissionDeniedError) as forbidden:
            member.events.list()  # admins only
        assert (forbidden.value.code, forbidden.value.status) == (10003, 403)
        # Keys are personal: a member sees its own only.
        assert [k.key_id for k in member.api_keys.list()] == [created.key_id]
        token = member.auth.console_token()
        assert token.key_id == created.key_id and token.user_id == created.owner_id and token.roles == ["member"]
    with combo.Combo(base_url=base_url, api_key=token.token) as console:
        assert console.auth.console_token().key_id == created.key_id  # renewed with the token itself
    assert client.auth.console_token().roles == ["admin", "member"]
    assert created.key_id in [k.key_id for k in client.api_keys.list()]
    assert client.api_keys.revoke(created.key_id).revoked_at is not None
    with combo.Combo(base_url=base_url, api_key=created.api_key) as revoked, pytest.raises(combo.AuthenticationError):
        revoked.agents.list()

    assert client.events.list(page_size=5).total >= 1
    costs = client.costs.get()
    assert costs.tokens >= 0
    by_day = client.costs.get(group_by="day", since=(dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=7)).isoformat())
    assert by_day.group_by == "day" and by_day.groups is not None
    assert client.costs.set_threshold(threshold_tokens=1_000_000).threshold_tokens == 1_000_000
    client.costs.set_threshold(threshold_tokens=None)
    money = client.costs.set_threshold(threshold_amount=12.5)
    assert money.threshold_amount == 12.5 and money.threshold_amount_source == "tenant" and money.threshold_tokens is None
    assert costs.amount >= 0 and costs.input_tokens >= 0 and costs.output_tokens >= 0
    assert client.costs.reset_threshold().threshold_source != "tenant"

    assert client.service.health().status == "ok"
    assert client.service.ready().status == "ready"
    document = client.service.openapi()
    assert document["openapi"].startswith("3.1")
