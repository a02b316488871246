from __future__ import annotations

import socket
import time

import httpx
import pytest

import combo
from combo import _base_client
from conftest import unique
from proxies import ScriptedFront


def test_a_429_is_retried_after_retry_after_with_the_same_idempotency_key(client: combo.Combo, base_url: str) -> None:
    front = ScriptedFront(base_url, fail=1, status=429, retry_after="1")
    name = unique("retried")
    try:
        with combo.Combo(base_url=front.url) as through:
            agent = through.agents.create(name=name)
    finally:
        front.close()
    keys = [h.get("Idempotency-Key") for (_m, _p, h) in front.requests]
    assert len(keys) == 2 and keys[0] and keys[0] == keys[1]
    assert [a.agent_id for a in client.agents.list(page_size=100) if a.name == name] == [agent.agent_id]


def test_out_of_retries_a_429_is_a_rate_limit_error(base_url: str) -> None:
    front = ScriptedFront(base_url, fail=10, status=429, retry_after="0")
    try:
        with combo.Combo(base_url=front.url, max_retries=1) as through, pytest.raises(combo.RateLimitError) as limited:
            through.agents.list()
    finally:
        front.close()
    assert limited.value.code == 10006 and limited.value.retry_after == 0 and len(front.requests) == 2


class Script:
    """A transport answering a list of statuses in turn (retry timing only: no service involved)."""

    def __init__(self, *statuses: int, data: object = None) -> None:
        self.statuses = list(statuses)
        self.data = {"deleted": True} if data is None else data
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        status = self.statuses.pop(0)
        body = {"code": 0, "data": self.data, "message": "ok"} if status == 200 else {"code": 20001, "data": {}, "message": "x"}
        return httpx.Response(status, json=body)


@pytest.fixture
def slept(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    delays: list[float] = []
    monkeypatch.setattr(_base_client.time, "sleep", delays.append)
    return delays


def scripted(script: Script, **kwargs: object) -> combo.Combo:
    return combo.Combo(
        base_url="http://service.test", api_key="k", http_client=httpx.Client(transport=httpx.MockTransport(script)), **kwargs
    )  # type: ignore[arg-type]


def test_backoff_doubles_with_jitter(slept: list[float]) -> None:
    script = Script(500, 503, 500, 200)
    scripted(script, max_retries=3).agents.delete("agt_1")
    assert len(script.requests) == 4
    for attempt, delay in enumerate(slept):
        assert 0.75 * 0.5 * 2**attempt <= delay <= 0.5 * 2**attempt


def test_gateway_errors_are_retried_on_reads_only(slept: list[float]) -> None:
    reads = Script(502, 504, 200)
    scripted(reads).service.openapi()
    assert len(reads.requests) == 3
    write = Script(502)
    with pytest.raises(combo.InternalServerError) as failed:
        scripted(write).files.delete("fil_1")
    assert failed.value.status == 502 and len(write.requests) == 1


def test_a_post_keeps_its_idempotency_key_across_attempts(slept: list[float]) -> None:
    session = {
        "session_id": "ses_1",
        "agent_id": "agt_1",
        "tenant_id": "default",
        "user_id": "u-1",
        "name": "s",
        "status": "archived",
        "metadata": {},
        "created_at": "2026-01-01T00:00:00.000Z",
        "updated_at": "2026-01-01T00:00:00.000Z",
        "archived_at": "2026-01-01T00:00:00.000Z",
    }
    script = Script(503, 500, 200, data=session)
    assert scripted(script).sessions.archive("ses_1").status == "archived"
    keys = {r.headers["idempotency-key"] for r in script.requests}
    assert len(script.requests) == 3 and len(keys) == 1
    assert scripted(Script(200)).max_retries == 2


def test_a_call_past_its_timeout_is_an_api_timeout_error() -> None:
    silent = socket.create_server(("127.0.0.1", 0))  # accepts, never answers
    try:
        with combo.Combo(base_url=f"http://127.0.0.1:{silent.getsockname()[1]}", api_key="k", max_retries=1, timeout=30) as client:
            started = time.monotonic()
            with pytest.raises(combo.APITimeoutError):
                client.agents.list(options={"timeout": 0.3})
            # Two attempts of 0.3 s and one backoff: far below the client's 30 s.
            assert time.monotonic() - started < 5
    finally:
        silent.close()


def test_no_service_is_an_api_connection_error(slept: list[float]) -> None:
    unused = socket.create_server(("127.0.0.1", 0))
    port = unused.getsockname()[1]
    unused.close()
    with combo.Combo(base_url=f"http://127.0.0.1:{port}", api_key="k") as client, pytest.raises(combo.APIConnectionError) as failed:
        client.agents.list()
    assert not isinstance(failed.value, combo.APITimeoutError) and len(slept) == 2
