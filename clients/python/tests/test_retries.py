from __future__ import annotations

import io
import os
import socket
import time

import httpx
import pytest

import combo
from combo import _base_client
from conftest import unique
from proxies import RATE_LIMITED, Scripted, ScriptedFront


def test_a_429_is_retried_after_retry_after_with_the_same_idempotency_key(client: combo.Combo, base_url: str) -> None:
    front = ScriptedFront(base_url, [Scripted(429, RATE_LIMITED, {"Retry-After": "1"})])
    name = unique("retried")
    try:
        with combo.Combo(base_url=front.url) as through:
            started = time.monotonic()
            agent = through.agents.create(name=name)
            waited = time.monotonic() - started
    finally:
        front.close()
    keys = [h.get("idempotency-key") for (_m, _p, h, _b) in front.requests]
    assert len(keys) == 2 and keys[0] and keys[0] == keys[1]
    assert waited >= 1.0  # Retry-After: 1
    assert [a.agent_id for a in client.agents.list(page_size=100) if a.name == name] == [agent.agent_id]


def test_out_of_retries_a_429_is_a_rate_limit_error(base_url: str) -> None:
    front = ScriptedFront(base_url, [Scripted(429, RATE_LIMITED, {"Retry-After": "0"})] * 10)
    try:
        with combo.Combo(base_url=front.url, max_retries=1) as through, pytest.raises(combo.RateLimitError) as limited:
            through.agents.list()
    finally:
        front.close()
    assert limited.value.code == 10006 and limited.value.retry_after == 0 and len(front.requests) == 2


SESSION = {
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
    script = Script(503, 500, 200, data=SESSION)
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


def test_a_retried_upload_sends_the_whole_file_again(client: combo.Combo, base_url: str) -> None:
    front = ScriptedFront(base_url, [Scripted(503, {"code": 20001, "data": {}, "message": "busy"}, {"Retry-After": "0"})])
    content = b"The whole brief, sent twice.\n" * 4000
    progress: list[int] = []
    try:
        with combo.Combo(base_url=front.url) as through, io.BytesIO(b"skip" + content) as f:
            f.seek(4)  # a file object not at its start: the upload is what follows
            uploaded = through.files.upload(file=f, on_progress=lambda sent, _total: progress.append(sent))
    finally:
        front.close()
    bodies = [body for (_m, _p, _h, body) in front.requests]
    # Each attempt is the whole multipart body (its boundary differs), the file from its start.
    assert len(bodies) == 2 and len(bodies[0]) == len(bodies[1])
    assert all(content in body and b"skip" not in body for body in bodies)
    assert progress.count(0) == 2 and progress.count(len(content)) == 2 and progress[-1] == len(content)  # it restarted with the retry
    assert client.files.get(uploaded.file_id).size_bytes == len(content)


def test_a_retry_that_finds_its_key_in_use_waits_for_it(client: combo.Combo, base_url: str, session: combo.Session) -> None:
    in_use = {"code": 10005, "data": {"field": "header.Idempotency-Key"}, "message": "a request with this Idempotency-Key is in progress"}
    front = ScriptedFront(base_url, [Scripted(409, in_use, {"Retry-After": "1"})])
    try:
        with combo.Combo(base_url=front.url) as through:
            assert through.sessions.archive(session.session_id).status == "archived"
            # Any other conflict is the caller's.
            with pytest.raises(combo.ConflictError):
                through.completions.create(session.agent_id, session_id=session.session_id, question="archived")
    finally:
        front.close()
    keys = [h["idempotency-key"] for (m, path, h, _b) in front.requests if path.endswith("/archive")]
    assert len(keys) == 2 and keys[0] == keys[1]


def test_readiness_is_answered_at_once(base_url: str) -> None:
    down = {"code": 20001, "data": {"down": ["worker"]}, "message": "not ready"}
    front = ScriptedFront(base_url, [Scripted(503, down, {"Retry-After": "5"})])
    try:
        with combo.Combo(base_url=front.url) as through:
            with pytest.raises(combo.InternalServerError) as not_ready:
                through.service.ready()
            assert through.service.ready().status == "ready"  # the next call reaches the service
    finally:
        front.close()
    assert not_ready.value.data["down"] == ["worker"] and len(front.requests) == 2


def test_a_reply_without_the_envelope_is_a_plain_api_error(base_url: str) -> None:
    front = ScriptedFront(base_url, [Scripted(502, b"<html>Bad Gateway</html>")])
    try:
        with combo.Combo(base_url=front.url, max_retries=0) as through, pytest.raises(combo.APIError) as failed:
            through.agents.list()
    finally:
        front.close()
    assert type(failed.value) is combo.APIError and failed.value.code is None and failed.value.status == 502


def test_headers_merge_whatever_their_case(base_url: str) -> None:
    key = os.environ["COMBO_API_KEY"]
    # A default `authorization` replaces the client's own (not sent beside it: that would fail).
    with combo.Combo(base_url=base_url, api_key="combo_not_this_one", default_headers={"authorization": f"Bearer {key}"}) as client:
        assert client.agents.list(page_size=1).page == 1
        # A caller's `IDEMPOTENCY-KEY` replaces the one the client makes: the repeat is a replay.
        key_header = {"IDEMPOTENCY-KEY": unique("mine")}
        name = unique("keyed")
        first = client.agents.with_raw_response.create(name=name, options={"extra_headers": key_header})
        again = client.agents.with_raw_response.create(name=name, options={"extra_headers": key_header})
        assert again.idempotent_replayed and again.parse().agent_id == first.parse().agent_id
