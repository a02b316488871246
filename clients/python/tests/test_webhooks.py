from __future__ import annotations

import datetime as dt
import json
import time

import pytest

import combo
from combo import webhooks
from conftest import unique
from proxies import Receiver


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


def test_a_real_delivery_verifies(client: combo.Combo, receiver: Receiver) -> None:
    started = dt.datetime.now(dt.timezone.utc)
    sub = client.webhooks.subscriptions.create(url=receiver.url, events=["session.created"], description=unique("hook"))
    assert sub.secret and client.webhooks.subscriptions.get(sub.subscription_id).url == receiver.url
    assert sub.subscription_id in [s.subscription_id for s in client.webhooks.subscriptions.list()]

    delivery = client.webhooks.subscriptions.test(sub.subscription_id)
    body, headers = receiver.wait_for(1)[0]
    event = webhooks.verify(body, headers, sub.secret)
    assert event.event == "webhook.test" and event.event_id == delivery.event_id
    assert client.webhooks.verify(body, headers, [sub.secret]).event_id == event.event_id

    with pytest.raises(webhooks.WebhookVerificationError):
        webhooks.verify(body, headers, "not-the-secret")
    with pytest.raises(webhooks.WebhookVerificationError):
        webhooks.verify(body.replace(b"webhook.test", b"webhook.tess"), headers, sub.secret)
    with pytest.raises(webhooks.WebhookVerificationError):
        webhooks.verify(body, headers, sub.secret, tolerance=300, now=time.time() + 3600)

    # The delivery log: per subscription, tenant-wide, one delivery with its attempts.
    deadline = time.monotonic() + 20
    while client.webhooks.deliveries.get(delivery.delivery_id).status != "delivered" and time.monotonic() < deadline:
        time.sleep(0.2)
    recorded = client.webhooks.deliveries.get(delivery.delivery_id)
    assert recorded.status == "delivered" and recorded.attempts[0].status_code == 200
    assert delivery.delivery_id in [d.delivery_id for d in client.webhooks.subscriptions.list_deliveries(sub.subscription_id)]
    assert delivery.delivery_id in [d.delivery_id for d in client.webhooks.deliveries.list(page_size=100)]

    # During a rotation's grace a delivery carries both signatures: either secret verifies it.
    rotated = client.webhooks.subscriptions.rotate_secret(sub.subscription_id, grace_seconds=600)
    assert rotated.secret != sub.secret and rotated.previous_secret_valid_until
    time.sleep(2.2)  # the new secret signs from 2 s after the rotation
    client.webhooks.subscriptions.test(sub.subscription_id)
    body, headers = receiver.wait_for(2)[1]
    assert len({k.lower(): v for k, v in headers.items()}["x-combo-signature"].split(",")) == 2
    assert webhooks.verify(body, headers, rotated.secret).event == "webhook.test"
    assert webhooks.verify(body, headers, sub.secret).event == "webhook.test"

    # Replays: of a time range, and of a dead letter (this one is not dead: a conflict).
    replay = client.webhooks.replays.create(
        since=started.isoformat(), until=dt.datetime.now(dt.timezone.utc).isoformat(), subscription_id=sub.subscription_id
    )
    assert client.webhooks.replays.get(replay.replay_id).replay_id == replay.replay_id
    assert isinstance(client.webhooks.dead_letters.list(), combo.SyncPage)
    with pytest.raises(combo.ConflictError) as not_dead:
        client.webhooks.dead_letters.replay(delivery.delivery_id)
    assert not_dead.value.code == 10005

    assert client.webhooks.subscriptions.update(sub.subscription_id, enabled=False).enabled is False

    # Signing: a Standard Webhooks subscription gets a whsec_ base64 secret; it may switch back.
    assert sub.signing == "combo"
    standard = client.webhooks.subscriptions.create(url=receiver.url, events=["session.created"], signing="standard_webhooks")
    assert standard.signing == "standard_webhooks" and standard.secret.startswith("whsec_") and len(standard.secret) == 50
    assert client.webhooks.subscriptions.get(standard.subscription_id).signing == "standard_webhooks"
    assert client.webhooks.subscriptions.update(standard.subscription_id, signing="combo").signing == "combo"
    client.webhooks.subscriptions.delete(standard.subscription_id)
    assert client.webhooks.subscriptions.delete(sub.subscription_id).deleted is True


def test_a_dead_letter_is_replayed(client: combo.Combo) -> None:
    # The service under test waits 200 ms between attempts (WEBHOOK_RETRY_DELAYS_MS_FOR_TESTS).
    failing = [True]
    receiver = Receiver(status=lambda: 500 if failing[0] else 200)
    try:
        sub = client.webhooks.subscriptions.create(url=receiver.url, events=["session.created"])
        delivery = client.webhooks.subscriptions.test(sub.subscription_id)
        deadline = time.monotonic() + 30
        while client.webhooks.deliveries.get(delivery.delivery_id).status != "dead" and time.monotonic() < deadline:
            time.sleep(0.2)
        dead = client.webhooks.deliveries.get(delivery.delivery_id)
        assert dead.status == "dead" and len(dead.attempts) == 5
        assert delivery.delivery_id in [d.delivery_id for d in client.webhooks.dead_letters.list(page_size=100)]

        failing[0] = False
        replayed = client.webhooks.dead_letters.replay(delivery.delivery_id)
        assert replayed.event_id == delivery.event_id
        assert client.webhooks.deliveries.get(delivery.delivery_id).replayed_by == replayed.delivery_id
        handled = client.webhooks.dead_letters.list(subscription_id=sub.subscription_id, replayed=True)
        assert [d.delivery_id for d in handled] == [delivery.delivery_id]
        assert list(client.webhooks.dead_letters.list(subscription_id=sub.subscription_id, replayed=False)) == []
        tests = client.webhooks.deliveries.list(subscription_id=sub.subscription_id, event="webhook.test", since=dead.created_at)
        assert [d.delivery_id for d in tests] == [replayed.delivery_id, delivery.delivery_id]
        body, headers = receiver.wait_for(6)[5]
        assert webhooks.verify(body, headers, sub.secret).event_id == delivery.event_id
        client.webhooks.subscriptions.delete(sub.subscription_id)
    finally:
        receiver.close()


def test_sign_makes_what_verify_accepts() -> None:
    body, headers = webhooks.sign({"event": "deploy"}, "s3cret", timestamp=int(time.time()), event_id="evt_1")
    assert headers["X-Combo-Event-Id"] == "evt_1" and json.loads(body) == {"event": "deploy"}
    event_body = json.dumps(
        {"event_id": "evt_1", "event": "webhook.test", "tenant_id": "t", "timestamp": "2026-01-01T00:00:00Z", "data": {}}
    ).encode()
    _, signed = webhooks.sign(event_body, "s3cret")
    # Header names in any case; several secrets; several signatures.
    lower = {k.lower(): v for k, v in signed.items()}
    assert webhooks.verify(event_body, lower, ["other", "s3cret"]).event_id == "evt_1"
    lower["x-combo-signature"] = "sha256=" + "0" * 64 + "," + lower["x-combo-signature"]
    assert webhooks.verify(event_body, lower, "s3cret").event == "webhook.test"
    with pytest.raises(webhooks.WebhookVerificationError):
        webhooks.verify(event_body, {**lower, "x-combo-timestamp": "yesterday"}, "s3cret")
