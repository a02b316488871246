"""Completions: a JSON reply (a 202 is followed to the run's end) or a resumable event stream."""

from __future__ import annotations

from typing import Any, Literal, overload

from .._exceptions import error_for
from .._generated import models
from .._resource import AsyncAPIResource, SyncAPIResource
from .._streaming import AsyncStream, Stream
from .._types import NOT_GIVEN, NotGiven, RequestOptions, path_segment, strip_not_given

_ENDED = {"completed", "failed", "canceled"}


def _body(
    session_id: str,
    question: str,
    multitask_strategy: Any,
    route: Any,
    attachments: Any,
    context_ids: Any,
    **flags: bool,
) -> dict[str, Any]:
    return strip_not_given(
        {
            "session_id": session_id,
            "question": question,
            "multitask_strategy": multitask_strategy,
            "route": route,
            "attachments": attachments,
            "context_ids": context_ids,
            **flags,
        }
    )


def reply_of_run(run: models.CompletionRun) -> models.CompletionReply:
    """The reply a run gave, once ended; a failed run raises its typed error."""
    if run.status == "failed":
        error = run.error
        raise error_for(error.code if error else 20001, error.message if error else "the run failed", status=200, trace_id=run.trace_id)
    return models.CompletionReply(
        session_id=run.session_id,
        answer=run.answer or "",
        reference=run.reference or [],
        trace_id=run.trace_id,
        cost=run.cost or models.Cost(tokens=0, duration_ms=0),
        route=run.route,
        model=run.model,
        offline=bool(run.offline),
        stop_reason=run.stop_reason or "canceled",
        artifacts=run.artifacts or [],
    )


class Completions(SyncAPIResource):
    @overload
    def create(
        self,
        agent_id: str,
        *,
        session_id: str,
        question: str,
        multitask_strategy: Literal["reject", "enqueue", "interrupt", "rollback"] | NotGiven = NOT_GIVEN,
        route: str | NotGiven = NOT_GIVEN,
        attachments: list[str] | NotGiven = NOT_GIVEN,
        context_ids: list[str] | NotGiven = NOT_GIVEN,
        background: Literal[False] = False,
        wait: Literal[True] = True,
        options: RequestOptions | None = None,
    ) -> models.CompletionReply: ...
    @overload
    def create(
        self,
        agent_id: str,
        *,
        session_id: str,
        question: str,
        multitask_strategy: Literal["reject", "enqueue", "interrupt", "rollback"] | NotGiven = NOT_GIVEN,
        route: str | NotGiven = NOT_GIVEN,
        attachments: list[str] | NotGiven = NOT_GIVEN,
        context_ids: list[str] | NotGiven = NOT_GIVEN,
        background: bool = False,
        wait: bool = True,
        options: RequestOptions | None = None,
    ) -> models.CompletionReply | models.RunAccepted: ...
    def create(
        self,
        agent_id: str,
        *,
        session_id: str,
        question: str,
        multitask_strategy: Literal["reject", "enqueue", "interrupt", "rollback"] | NotGiven = NOT_GIVEN,
        route: str | NotGiven = NOT_GIVEN,
        attachments: list[str] | NotGiven = NOT_GIVEN,
        context_ids: list[str] | NotGiven = NOT_GIVEN,
        background: bool = False,
        wait: bool = True,
        options: RequestOptions | None = None,
    ) -> models.CompletionReply | models.RunAccepted:
        """Asks the agent and answers its reply.

        A run still going when the service answers (HTTP 202, `RunAccepted`) is followed to its end
        through its event stream, unless `wait=False`; `background=True` answers the RunAccepted at
        once. A failed run raises its typed error (e.g. UpstreamModelError, 30001).
        """
        body = _body(session_id, question, multitask_strategy, route, attachments, context_ids, background=background)
        response = self._request(
            "POST",
            f"/v1/combo/agents/{path_segment(agent_id)}/completions",
            body=body,
            cast_to=None,
            options={**(options or {}), "raw_response": True},
        )
        data = response.parse()
        if response.status_code != 202:
            return models.CompletionReply.model_validate(data)
        accepted = models.RunAccepted.model_validate(data)
        if background or not wait:
            return accepted
        return self.follow(accepted.trace_id)

    def follow(self, trace_id: str) -> models.CompletionReply:
        """Waits for a run to end (through its events, resumed if the connection drops) and answers its reply."""
        stream = Stream(self._client, None, trace_id=trace_id)
        for _ in stream:
            pass
        run = self._request(
            "GET", f"/v1/combo/completions/{path_segment(trace_id)}", cast_to=models.CompletionRun, retry_gateway_errors=True
        )
        return reply_of_run(run)

    def stream(
        self,
        agent_id: str,
        *,
        session_id: str,
        question: str,
        multitask_strategy: Literal["reject", "enqueue", "interrupt", "rollback"] | NotGiven = NOT_GIVEN,
        route: str | NotGiven = NOT_GIVEN,
        attachments: list[str] | NotGiven = NOT_GIVEN,
        context_ids: list[str] | NotGiven = NOT_GIVEN,
        options: RequestOptions | None = None,
    ) -> Stream:
        """Asks the agent and answers its event stream (iterate it; `final()` for the result).

        The request carries one Idempotency-Key: if the connection drops before the first event,
        the same request is sent again and attaches to the same run; after it, the run's events
        are read on from the last one received.
        """
        body = _body(session_id, question, multitask_strategy, route, attachments, context_ids, stream=True)
        opts: RequestOptions = {**(options or {})}
        opts.setdefault("idempotency_key", _new_key())
        path = f"/v1/combo/agents/{path_segment(agent_id)}/completions"
        return Stream(self._client, lambda last: self._client._open_stream("POST", path, body=body, last_event_id=last, options=opts))


class AsyncCompletions(AsyncAPIResource):
    async def create(
        self,
        agent_id: str,
        *,
        session_id: str,
        question: str,
        multitask_strategy: Literal["reject", "enqueue", "interrupt", "rollback"] | NotGiven = NOT_GIVEN,
        route: str | NotGiven = NOT_GIVEN,
        attachments: list[str] | NotGiven = NOT_GIVEN,
        context_ids: list[str] | NotGiven = NOT_GIVEN,
        background: bool = False,
        wait: bool = True,
        options: RequestOptions | None = None,
    ) -> models.CompletionReply | models.RunAccepted:
        """Asks the agent; see Completions.create."""
        body = _body(session_id, question, multitask_strategy, route, attachments, context_ids, background=background)
        response = await self._request(
            "POST",
            f"/v1/combo/agents/{path_segment(agent_id)}/completions",
            body=body,
            cast_to=None,
            options={**(options or {}), "raw_response": True},
        )
        data = response.parse()
        if response.status_code != 202:
            return models.CompletionReply.model_validate(data)
        accepted = models.RunAccepted.model_validate(data)
        if background or not wait:
            return accepted
        return await self.follow(accepted.trace_id)

    async def follow(self, trace_id: str) -> models.CompletionReply:
        stream = AsyncStream(self._client, None, trace_id=trace_id)
        async for _ in stream:
            pass
        run = await self._request(
            "GET", f"/v1/combo/completions/{path_segment(trace_id)}", cast_to=models.CompletionRun, retry_gateway_errors=True
        )
        return reply_of_run(run)

    def stream(
        self,
        agent_id: str,
        *,
        session_id: str,
        question: str,
        multitask_strategy: Literal["reject", "enqueue", "interrupt", "rollback"] | NotGiven = NOT_GIVEN,
        route: str | NotGiven = NOT_GIVEN,
        attachments: list[str] | NotGiven = NOT_GIVEN,
        context_ids: list[str] | NotGiven = NOT_GIVEN,
        options: RequestOptions | None = None,
    ) -> AsyncStream:
        """Asks the agent and answers its event stream: `async with client.completions.stream(...) as s`."""
        body = _body(session_id, question, multitask_strategy, route, attachments, context_ids, stream=True)
        opts: RequestOptions = {**(options or {})}
        opts.setdefault("idempotency_key", _new_key())
        path = f"/v1/combo/agents/{path_segment(agent_id)}/completions"
        return AsyncStream(self._client, lambda last: self._client._open_stream("POST", path, body=body, last_event_id=last, options=opts))


def _new_key() -> str:
    import uuid

    return str(uuid.uuid4())
