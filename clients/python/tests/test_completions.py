from __future__ import annotations

import random
import string
import threading
import time
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator

import pytest

import combo
from conftest import unique
from proxies import CuttingProxy


def ended(client: combo.Combo, trace_id: str, *, status: str | None = None, timeout: float = 30.0) -> combo.CompletionRun:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run = client.runs.get(trace_id)
        if (status and run.status == status) or (not status and run.status in ("completed", "failed", "canceled")):
            return run
        time.sleep(0.2)
    raise AssertionError(f"run {trace_id} did not reach {status or 'an end'}")


def test_json_completion(client: combo.Combo, agent: combo.Agent, session: combo.Session) -> None:
    reply = client.completions.create(agent.agent_id, session_id=session.session_id, question="Hi")
    assert isinstance(reply, combo.CompletionReply)
    assert reply.answer == "Echo: Hi"
    assert reply.trace_id.startswith("trc_") and reply.cost.tokens > 0 and reply.stop_reason == "answered"
    # The split of the tokens; no money, the test installation's model has no price.
    assert reply.cost.input_tokens and reply.cost.output_tokens and reply.cost.amount is None
    raw = client.completions.with_raw_response.create(agent.agent_id, session_id=session.session_id, question="raw [slow]")
    assert raw.status_code == 202 and isinstance(raw.parse(), combo.RunAccepted) and raw.rate_limit.limit
    client.completions.follow(raw.parse().trace_id)


def test_a_202_is_followed_to_the_end(client: combo.Combo, agent: combo.Agent, session: combo.Session) -> None:
    reply = client.completions.create(agent.agent_id, session_id=session.session_id, question="take your time [slow]")
    assert isinstance(reply, combo.CompletionReply)
    assert reply.answer == "Echo: take your time [slow]"
    run = client.runs.get(reply.trace_id)
    assert (run.status, run.question) == ("completed", "take your time [slow]")

    accepted = client.completions.create(agent.agent_id, session_id=session.session_id, question="no waiting [slow]", wait=False)
    assert isinstance(accepted, combo.RunAccepted) and accepted.status == "running"
    assert accepted.links.self_ == f"/v1/combo/completions/{accepted.trace_id}"
    assert client.completions.follow(accepted.trace_id).answer == "Echo: no waiting [slow]"


def test_stream_events_and_final(client: combo.Combo, agent: combo.Agent, session: combo.Session) -> None:
    with client.completions.stream(agent.agent_id, session_id=session.session_id, question="stream me") as stream:
        events = list(stream)
        final = stream.final()
        assert stream.rate_limit.limit and stream.headers.get("content-type", "").startswith("text/event-stream")
    assert isinstance(events[0], combo.ThinkingEvent) and events[0].data.phase == "accepted"
    assert isinstance(events[-1], combo.DoneEvent)
    assert any(isinstance(e, combo.MessageEvent) for e in events)
    assert [int(e.id.rsplit(":", 1)[1]) for e in events] == list(range(len(events)))
    times = [datetime.fromisoformat(e.data.timestamp.replace("Z", "+00:00")) for e in events if not isinstance(e, combo.UnknownEvent)]
    assert len(times) == len(events) and times == sorted(times)
    assert final.answer == "Echo: stream me" and final.trace_id == stream.trace_id and final.cost and final.cost.tokens > 0
    assert final.route == "@chat@llm@default@" and final.offline is False and final.stop_reason == "answered"


def test_a_dropped_stream_resumes_once_per_event(client: combo.Combo, base_url: str, agent: combo.Agent) -> None:
    session = client.sessions.create(agent.agent_id)
    proxy = CuttingProxy(base_url, cuts=2, after_events=3)
    try:
        with combo.Combo(base_url=proxy.url) as through_proxy:
            with through_proxy.completions.stream(agent.agent_id, session_id=session.session_id, question="resume me [slow]") as stream:
                ids = [e.id for e in stream]
                final = stream.final()
    finally:
        proxy.close()
    assert proxy.cut == 2 and proxy.connections >= 3
    assert [int(i.rsplit(":", 1)[1]) for i in ids] == list(range(len(ids)))  # every event once, in order
    assert final.answer == "Echo: resume me [slow]"
    # The resumes read the run's events after the last one received.
    resumes = [head for head in proxy.requests if head.startswith(f"GET /v1/combo/completions/{final.trace_id}/events")]
    assert len(resumes) == 2 and all("last-event-id: " in head.lower() for head in resumes)


def test_a_delta_stream_carries_new_text_and_resumes_in_delta_mode(client: combo.Combo, base_url: str, agent: combo.Agent) -> None:
    session = client.sessions.create(agent.agent_id)
    proxy = CuttingProxy(base_url, cuts=1, after_events=5)
    try:
        with combo.Combo(base_url=proxy.url) as through_proxy:
            question = "delta me [slow]"
            with through_proxy.completions.stream(
                agent.agent_id, session_id=session.session_id, question=question, stream_format="delta"
            ) as stream:
                messages = [e.data for e in stream if isinstance(e, combo.MessageEvent)]
                final = stream.final()
    finally:
        proxy.close()
    assert proxy.cut == 1
    # Only new text until the last message, which carries the whole answer.
    assert all(m.answer is None and m.delta is not None for m in messages[:-1])
    assert messages[-1].answer == final.answer == "Echo: delta me [slow]"
    resumes = [head for head in proxy.requests if head.startswith(f"GET /v1/combo/completions/{final.trace_id}/events?stream_format=delta")]
    assert len(resumes) == 1


def test_a_stream_that_cannot_reconnect_gives_up_after_max_stream_resumes(base_url: str, agent: combo.Agent, client: combo.Combo) -> None:
    session = client.sessions.create(agent.agent_id)
    proxy = CuttingProxy(base_url, cuts=1, after_events=2, refuse_after_first=True)
    try:
        with combo.Combo(base_url=proxy.url, max_retries=0, max_stream_resumes=2) as through_proxy:
            stream = through_proxy.completions.stream(agent.agent_id, session_id=session.session_id, question="unreachable [slow]")
            with pytest.raises(combo.APIConnectionError):
                stream.final()
    finally:
        proxy.close()
    assert proxy.connections == 1 + 2  # the first, then two reconnections
    ended(client, stream.trace_id or "")


def test_completion_arguments_are_the_request_schema() -> None:
    import inspect

    from combo._generated.models import CompletionRequest

    completions = combo.Combo(api_key="k").completions
    # `stream` and `background` are what stream() and create(background=) set; `stream_format` only streams have.
    for method, set_by_method in (
        (completions.create, {"stream", "background", "stream_format"}),
        (completions.stream, {"stream", "background"}),
    ):
        arguments = set(inspect.signature(method).parameters) - {"agent_id", "options", "wait"}
        assert arguments | set_by_method == set(CompletionRequest.model_fields), method.__name__


def test_a_stream_cut_before_its_first_event_attaches_to_the_same_run(client: combo.Combo, base_url: str, agent: combo.Agent) -> None:
    session = client.sessions.create(agent.agent_id)
    proxy = CuttingProxy(base_url, cuts=1, after_events=0)
    try:
        with combo.Combo(base_url=proxy.url) as through_proxy:
            final = through_proxy.completions.stream(agent.agent_id, session_id=session.session_id, question="again [slow]").final()
    finally:
        proxy.close()
    assert proxy.cut == 1 and final.answer == "Echo: again [slow]"
    # The request was sent twice with one Idempotency-Key: one run.
    assert [r.trace_id for r in client.runs.list_for_session(session.session_id)] == [final.trace_id]


def test_closing_a_stream_leaves_the_run_going(client: combo.Combo, agent: combo.Agent) -> None:
    session = client.sessions.create(agent.agent_id)
    with client.completions.stream(agent.agent_id, session_id=session.session_id, question="leave early [slow]") as stream:
        first = next(stream)
        assert isinstance(first, combo.ThinkingEvent)
    assert stream.trace_id
    assert ended(client, stream.trace_id).status == "completed"


def test_background_runs_events_and_cancel(client: combo.Combo, agent: combo.Agent) -> None:
    session = client.sessions.create(agent.agent_id)
    accepted = client.completions.create(agent.agent_id, session_id=session.session_id, question="background [slow]", background=True)
    assert isinstance(accepted, combo.RunAccepted)
    events = client.runs.events(accepted.trace_id)
    first = next(iter(events))
    assert isinstance(first, combo.ThinkingEvent)
    assert events.final().answer == "Echo: background [slow]"

    later = client.completions.create(
        agent.agent_id, session_id=session.session_id, question="stop me before the answer is done [long]", background=True
    )
    assert isinstance(later, combo.RunAccepted)
    canceled = client.runs.cancel(later.trace_id)
    assert canceled.trace_id == later.trace_id
    assert ended(client, later.trace_id).status == "canceled"

    # The run lists: tenant-wide (with filters), per agent and per session.
    assert later.trace_id in [r.trace_id for r in client.runs.list(status="canceled", page_size=100)]
    assert accepted.trace_id in [r.trace_id for r in client.runs.list_for_agent(agent.agent_id, page_size=100)]
    assert {r.trace_id for r in client.runs.list_for_session(session.session_id)} == {accepted.trace_id, later.trace_id}


def test_a_failed_run_raises_its_typed_error(client: combo.Combo, agent: combo.Agent) -> None:
    session = client.sessions.create(agent.agent_id)
    with pytest.raises(combo.UpstreamModelError) as failed:
        client.completions.create(agent.agent_id, session_id=session.session_id, question="[fail]")
    assert failed.value.code == 30001
    stream = client.completions.stream(agent.agent_id, session_id=session.session_id, question="[fail] again")
    with pytest.raises(combo.UpstreamModelError):
        stream.final()


class _SlowHandler(BaseHTTPRequestHandler):
    """Answers after 5 s, long after the tool's timeout."""

    def do_POST(self) -> None:
        time.sleep(5)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def slow_endpoint() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _SlowHandler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/slow"
    server.shutdown()
    server.server_close()


def test_a_tool_that_times_out_raises_upstream_timeout(client: combo.Combo, slow_endpoint: str) -> None:
    name = "slow" + "".join(random.choices(string.ascii_lowercase, k=8))
    tool = {"name": "wait", "description": "Waits", "parameters": {"type": "object", "properties": {}}}
    skill = client.skills.install(
        manifest={
            "name": name,
            "version": "1.0.0",
            "tools": [{**tool, "http": {"method": "POST", "url": slow_endpoint, "timeout_ms": 300}}],
        }
    )
    agent = client.agents.create(name=unique("py-timeout"))
    try:
        session = client.sessions.create(agent.agent_id)
        client.skills.activate(skill.skill_id, session_id=session.session_id)
        question = f"wait [tool:{name}__wait]"
        with pytest.raises(combo.UpstreamTimeoutError) as timed_out:
            client.completions.create(agent.agent_id, session_id=session.session_id, question=question)
        assert timed_out.value.code == 30002 and "timed out" in timed_out.value.message
        assert timed_out.value.trace_id and timed_out.value.trace_id.startswith("trc_")
        with client.completions.stream(agent.agent_id, session_id=session.session_id, question=question) as stream:
            events = list(stream)
            failure, last = events[-2:]
            assert isinstance(failure, combo.ErrorEvent) and isinstance(last, combo.DoneEvent)
            assert failure.data.code == 30002
            with pytest.raises(combo.UpstreamTimeoutError) as streamed:
                stream.final()
            assert streamed.value.trace_id == stream.trace_id
    finally:
        client.agents.delete(agent.agent_id, cascade=True)
        client.skills.delete(skill.skill_id)


def test_tool_call_approval(client: combo.Combo) -> None:
    agent = client.agents.create(name=unique("approver"), tools=["current_time"], approval={"tools": ["current_time"], "timeout_s": 60})
    session = client.sessions.create(agent.agent_id)
    accepted = client.completions.create(
        agent.agent_id, session_id=session.session_id, question="what time is it [tool:current_time]", background=True
    )
    assert isinstance(accepted, combo.RunAccepted)
    waiting = ended(client, accepted.trace_id, status="waiting_approval")
    pending = [a for a in waiting.approvals if a.status == "pending"]
    assert len(pending) == 1 and pending[0].tool == "current_time"
    decision = client.runs.approvals.decide(accepted.trace_id, pending[0].approval_id, decision="approve", comment="fine")
    assert decision.applied is True
    run = ended(client, accepted.trace_id)
    assert run.status == "completed" and run.answer == "Echo: what time is it [tool:current_time]"
    assert run.requested_by and run.requested_by.startswith("key_")
    kinds = [type(e).__name__ for e in client.runs.events(accepted.trace_id)]
    assert "ApprovalRequiredEvent" in kinds and "ApprovalDecidedEvent" in kinds and "ToolResultEvent" in kinds


@pytest.mark.anyio
async def test_async_stream_and_follow(aclient: combo.AsyncCombo, agent: combo.Agent) -> None:
    async with aclient:
        session = await aclient.sessions.create(agent.agent_id)
        pages = [r.trace_id async for r in aclient.runs.list(page_size=2)]
        assert len(pages) == len(set(pages))
        async with aclient.completions.stream(agent.agent_id, session_id=session.session_id, question="async") as stream:
            kinds = [type(e).__name__ async for e in stream]
            final = await stream.final()
        awaited = await aclient.completions.stream(agent.agent_id, session_id=session.session_id, question="awaited")
        assert (await awaited.final()).answer == "Echo: awaited"
        assert kinds[0] == "ThinkingEvent" and kinds[-1] == "DoneEvent" and final.answer == "Echo: async"
        reply = await aclient.completions.create(agent.agent_id, session_id=session.session_id, question="async [slow]")
        assert isinstance(reply, combo.CompletionReply) and reply.answer == "Echo: async [slow]"
