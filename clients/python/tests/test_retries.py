from __future__ import annotations

import io
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


class Recording:
    """A transport that answers a scripted list of (status, json, headers) and records each request with its body."""

    def __init__(self, *answers: tuple[int, object, dict[str, str]]) -> None:
        self.answers = list(answers)
        self.bodies: list[bytes] = []
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        self.bodies.append(request.read())
        status, body, headers = self.answers.pop(0)
        return httpx.Response(status, json=body, headers=headers)


FILE = {
    "file_id": "fil_1",
    "name": "a.bin",
    "content_type": "text/plain",
    "format": "text",
    "size_bytes": 307_200,
    "token_count": 1,
    "truncated": False,
    "text_preview": "",
    "created_at": "2026-01-01T00:00:00.000Z",
}


def test_a_retried_upload_sends_the_whole_file_again(slept: list[float]) -> None:
    transport = Recording((503, {"code": 20001, "data": {}, "message": "busy"}, {}), (200, {"code": 0, "data": FILE, "message": "ok"}, {}))
    client = combo.Combo(base_url="http://service.test", api_key="k", http_client=httpx.Client(transport=httpx.MockTransport(transport)))
    content = bytes(range(256)) * 1200
    progress: list[int] = []
    with io.BytesIO(b"skip" + content) as f:
        f.seek(4)  # a file object not at its start: the upload is what follows
        client.files.upload(file=f, on_progress=lambda sent, _total: progress.append(sent))
    # Each attempt is the whole multipart body (its boundary differs), the file from its start.
    assert len(transport.bodies) == 2 and len(transport.bodies[0]) == len(transport.bodies[1])
    assert all(content in body and b"skip" not in body for body in transport.bodies)
    # Progress restarts with the second attempt.
    assert progress.count(len(content)) == 2 and progress.index(len(content)) < len(progress) - 1


def test_a_retry_that_finds_its_key_in_use_waits_for_it(slept: list[float]) -> None:
    in_use = {"code": 10005, "data": {"field": "header.Idempotency-Key"}, "message": "a request with this Idempotency-Key is in progress"}
    transport = Recording((409, in_use, {"Retry-After": "1"}), (200, {"code": 0, "data": SESSION, "message": "ok"}, {}))
    client = combo.Combo(base_url="http://service.test", api_key="k", http_client=httpx.Client(transport=httpx.MockTransport(transport)))
    assert client.sessions.archive("ses_1").status == "archived"
    assert slept == [1.0] and len({r.headers["idempotency-key"] for r in transport.requests}) == 1
    # Any other conflict is the caller's.
    other = Recording((409, {"code": 10005, "data": {}, "message": "archived"}, {"Retry-After": "1"}))
    with pytest.raises(combo.ConflictError):
        combo.Combo(
            base_url="http://service.test", api_key="k", http_client=httpx.Client(transport=httpx.MockTransport(other))
        ).sessions.archive("ses_1")


def test_readiness_is_answered_at_once(slept: list[float]) -> None:
    down = {"code": 20001, "data": {"down": ["worker"]}, "message": "not ready"}
    transport = Recording((503, down, {"Retry-After": "5"}))
    client = combo.Combo(base_url="http://service.test", api_key="k", http_client=httpx.Client(transport=httpx.MockTransport(transport)))
    with pytest.raises(combo.InternalServerError) as not_ready:
        client.service.ready()
    assert not_ready.value.data["down"] == ["worker"] and len(transport.requests) == 1 and slept == []


def test_a_reply_without_the_envelope_is_a_plain_api_error(slept: list[float]) -> None:
    def proxy_page(request: httpx.Request) -> httpx.Response:
        return httpx.Response(502, text="<html>Bad Gateway</html>")

    client = combo.Combo(
        base_url="http://service.test", api_key="k", max_retries=0, http_client=httpx.Client(transport=httpx.MockTransport(proxy_page))
    )
    with pytest.raises(combo.APIError) as failed:
        client.agents.list()
    assert type(failed.value) is combo.APIError and failed.value.code is None and failed.value.status == 502


def test_headers_merge_whatever_their_case() -> None:
    transport = Recording((200, {"code": 0, "data": SESSION, "message": "ok"}, {}))
    client = combo.Combo(
        base_url="http://service.test",
        api_key="k",
        default_headers={"authorization": "Bearer console-token"},
        http_client=httpx.Client(transport=httpx.MockTransport(transport)),
    )
    client.sessions.archive("ses_1", options={"extra_headers": {"IDEMPOTENCY-KEY": "mine"}})
    sent = transport.requests[0].headers
    assert sent.get_list("authorization") == ["Bearer console-token"] and sent.get_list("idempotency-key") == ["mine"]
