"""Completions: a JSON reply (a 202 is followed to the run's end) or a resumable event stream."""

from __future__ import annotations

import time
import uuid
from functools import cached_property
from typing import Any, Literal, overload

import anyio

from .._exceptions import APITimeoutError, error_for
from .._generated import models
from .._resource import AsyncAPIResource, SyncAPIResource
from .._response import APIResponse
from .._streaming import AsyncStream, Stream
from .._types import NOT_GIVEN, NotGiven, RequestOptions, path_segment, strip_not_given

MultitaskStrategy = Literal["reject", "enqueue", "interrupt", "rollback"]
StreamFormat = Literal["answer", "delta"]
_ENDED = ("completed", "failed", "canceled")
# After its `done` event a run's record is written at once; this bounds the wait for it.
_RECORD_WAIT_SECONDS = 30.0


def _body(
    session_id: str,
    question: str,
    multitask_strategy: MultitaskStrategy | NotGiven,
    route: str | NotGiven,
    attachments: list[str] | NotGiven,
    context_ids: list[str] | NotGiven,
    **flags: bool | str,
) -> dict[str, Any]:
    # The keyword arguments of create() and stream(): the CompletionRequest fields but `stream`
    # and `background`, which those methods set (a test holds them to the schema).
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


def _path(agent_id: str) -> str:
    return f"/v1/combo/agents/{path_segment(agent_id)}/completions"


def _stream_options(options: RequestOptions | None) -> RequestOptions:
    # One key for the stream's request: a repeat before the first event attaches to the same run.
    opts = RequestOptions(**(options or {}))
    opts.setdefault("idempotency_key", str(uuid.uuid4()))
    return opts


def reply_of_run(run: models.CompletionRun) -> models.CompletionReply:
    """The reply an ended run gave; a failed run raises its typed error."""
    if run.status == "failed":
        error = run.error
        raise error_for(error.code if error else 20001, error.message if error else "the run failed", trace_id=run.trace_id)
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


def _reply(response: APIResponse[Any]) -> models.CompletionReply | models.RunAccepted:
    data = response.parse()
    return models.RunAccepted.model_validate(data) if response.status_code == 202 else models.CompletionReply.model_validate(data)


class Completions(SyncAPIResource):
    @cached_property
    def with_raw_response(self) -> CompletionsWithRawResponse:
        """`create` answering the HTTP response (status, headers, rate limit) with its reply (a 202: the RunAccepted)."""
        return CompletionsWithRawResponse(self)

    @overload
    def create(
        self,
        agent_id: str,
        *,
        session_id: str,
        question: str,
        multitask_strategy: MultitaskStrategy | NotGiven = NOT_GIVEN,
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
        multitask_strategy: MultitaskStrategy | NotGiven = NOT_GIVEN,
        route: str | NotGiven = NOT_GIVEN,
        attachments: list[str] | NotGiven = NOT_GIVEN,
        context_ids: list[str] | NotGiven = NOT_GIVEN,
        background: Literal[True],
        wait: bool = True,
        options: RequestOptions | None = None,
    ) -> models.RunAccepted: ...
    @overload
    def create(
        self,
        agent_id: str,
        *,
        session_id: str,
        question: str,
        multitask_strategy: MultitaskStrategy | NotGiven = NOT_GIVEN,
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
        multitask_strategy: MultitaskStrategy | NotGiven = NOT_GIVEN,
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
        reply = _reply(self._request("POST", _path(agent_id), body=body, cast_to=None, options={**(options or {}), "raw_response": True}))
        if isinstance(reply, models.RunAccepted) and wait and not background:
            return self.follow(reply.trace_id, options=options)
        return reply

    def follow(self, trace_id: str, *, options: RequestOptions | None = None) -> models.CompletionReply:
        """Waits for a run to end and answers its reply; a failed run raises its typed error.

        It reads the run's events to `done` (resumed if the connection drops), then its record.
        """
        Stream(self._client, None, trace_id=trace_id, options=options).final()
        deadline = time.monotonic() + _RECORD_WAIT_SECONDS
        while True:
            run = self._request(
                "GET",
                f"/v1/combo/completions/{path_segment(trace_id)}",
                cast_to=models.CompletionRun,
                retry_gateway_errors=True,
                options=options,
            )
            if run.status in _ENDED:
                return reply_of_run(run)
            if time.monotonic() > deadline:
                raise APITimeoutError(f"run {trace_id} sent `done` but its record still says {run.status}")
            time.sleep(0.2)

    def stream(
        self,
        agent_id: str,
        *,
        session_id: str,
        question: str,
        multitask_strategy: MultitaskStrategy | NotGiven = NOT_GIVEN,
        route: str | NotGiven = NOT_GIVEN,
        attachments: list[str] | NotGiven = NOT_GIVEN,
        context_ids: list[str] | NotGiven = NOT_GIVEN,
        stream_format: StreamFormat = "answer",
        options: RequestOptions | None = None,
    ) -> Stream:
        """Asks the agent and answers its event stream (iterate it; `final()` for the result).

        The request carries one Idempotency-Key: if the connection drops before the first event,
        the same request is sent again and attaches to the same run; after it, the run's events
        are read on from the last one received. `stream_format="delta"`: each `message` event carries
        only the new text (`data.delta`), the last one the whole answer; `final().answer` is the
        whole answer either way.
        """
        body = _body(session_id, question, multitask_strategy, route, attachments, context_ids, stream=True, stream_format=stream_format)
        opts = _stream_options(options)
        return Stream(
            self._client,
            lambda last: self._client._open_stream("POST", _path(agent_id), body=body, last_event_id=last, options=opts),
            options=options,
            stream_format=stream_format,
        )


class CompletionsWithRawResponse:
    def __init__(self, completions: Completions) -> None:
        self._completions = completions

    def create(
        self,
        agent_id: str,
        *,
        session_id: str,
        question: str,
        multitask_strategy: MultitaskStrategy | NotGiven = NOT_GIVEN,
        route: str | NotGiven = NOT_GIVEN,
        attachments: list[str] | NotGiven = NOT_GIVEN,
        context_ids: list[str] | NotGiven = NOT_GIVEN,
        background: bool = False,
        options: RequestOptions | None = None,
    ) -> APIResponse[models.CompletionReply | models.RunAccepted]:
        """The HTTP response of a completion: a 200's CompletionReply or a 202's RunAccepted (not followed)."""
        body = _body(session_id, question, multitask_strategy, route, attachments, context_ids, background=background)
        response: APIResponse[Any] = self._completions._request(
            "POST", _path(agent_id), body=body, cast_to=None, options={**(options or {}), "raw_response": True}
        )
        return APIResponse(response.http_response, _reply(response))


class AsyncCompletions(AsyncAPIResource):
    @cached_property
    def with_raw_response(self) -> AsyncCompletionsWithRawResponse:
        """See Completions.with_raw_response."""
        return AsyncCompletionsWithRawResponse(self)

    @overload
    async def create(
        self,
        agent_id: str,
        *,
        session_id: str,
        question: str,
        multitask_strategy: MultitaskStrategy | NotGiven = NOT_GIVEN,
        route: str | NotGiven = NOT_GIVEN,
        attachments: list[str] | NotGiven = NOT_GIVEN,
        context_ids: list[str] | NotGiven = NOT_GIVEN,
        background: Literal[False] = False,
        wait: Literal[True] = True,
        options: RequestOptions | None = None,
    ) -> models.CompletionReply: ...
    @overload
    async def create(
        self,
        agent_id: str,
        *,
        session_id: str,
        question: str,
        multitask_strategy: MultitaskStrategy | NotGiven = NOT_GIVEN,
        route: str | NotGiven = NOT_GIVEN,
        attachments: list[str] | NotGiven = NOT_GIVEN,
        context_ids: list[str] | NotGiven = NOT_GIVEN,
        background: Literal[True],
        wait: bool = True,
        options: RequestOptions | None = None,
    ) -> models.RunAccepted: ...
    @overload
    async def create(
        self,
        agent_id: str,
        *,
        session_id: str,
        question: str,
        multitask_strategy: MultitaskStrategy | NotGiven = NOT_GIVEN,
        route: str | NotGiven = NOT_GIVEN,
        attachments: list[str] | NotGiven = NOT_GIVEN,
        context_ids: list[str] | NotGiven = NOT_GIVEN,
        background: bool = False,
        wait: bool = True,
        options: RequestOptions | None = None,
    ) -> models.CompletionReply | models.RunAccepted: ...
    async def create(
        self,
        agent_id: str,
        *,
        session_id: str,
        question: str,
        multitask_strategy: MultitaskStrategy | NotGiven = NOT_GIVEN,
        route: str | NotGiven = NOT_GIVEN,
        attachments: list[str] | NotGiven = NOT_GIVEN,
        context_ids: list[str] | NotGiven = NOT_GIVEN,
        background: bool = False,
        wait: bool = True,
        options: RequestOptions | None = None,
    ) -> models.CompletionReply | models.RunAccepted:
        """Asks the agent; see Completions.create."""
        body = _body(session_id, question, multitask_strategy, route, attachments, context_ids, background=background)
        raw = await self._request("POST", _path(agent_id), body=body, cast_to=None, options={**(options or {}), "raw_response": True})
        reply = _reply(raw)
        if isinstance(reply, models.RunAccepted) and wait and not background:
            return await self.follow(reply.trace_id, options=options)
        return reply

    async def follow(self, trace_id: str, *, options: RequestOptions | None = None) -> models.CompletionReply:
        """See Completions.follow."""
        await AsyncStream(self._client, None, trace_id=trace_id, options=options).final()
        deadline = time.monotonic() + _RECORD_WAIT_SECONDS
        while True:
            path = f"/v1/combo/completions/{path_segment(trace_id)}"
            run = await self._request("GET", path, cast_to=models.CompletionRun, retry_gateway_errors=True, options=options)
            if run.status in _ENDED:
                return reply_of_run(run)
            if time.monotonic() > deadline:
                raise APITimeoutError(f"run {trace_id} sent `done` but its record still says {run.status}")
            await anyio.sleep(0.2)

    def stream(
        self,
        agent_id: str,
        *,
        session_id: str,
        question: str,
        multitask_strategy: MultitaskStrategy | NotGiven = NOT_GIVEN,
        route: str | NotGiven = NOT_GIVEN,
        attachments: list[str] | NotGiven = NOT_GIVEN,
        context_ids: list[str] | NotGiven = NOT_GIVEN,
        stream_format: StreamFormat = "answer",
        options: RequestOptions | None = None,
    ) -> AsyncStream:
        """Asks the agent and answers its event stream: `async with client.completions.stream(...) as stream`."""
        body = _body(session_id, question, multitask_strategy, route, attachments, context_ids, stream=True, stream_format=stream_format)
        opts = _stream_options(options)
        return AsyncStream(
            self._client,
            lambda last: self._client._open_stream("POST", _path(agent_id), body=body, last_event_id=last, options=opts),
            options=options,
            stream_format=stream_format,
        )


class AsyncCompletionsWithRawResponse:
    def __init__(self, completions: AsyncCompletions) -> None:
        self._completions = completions

    async def create(
        self,
        agent_id: str,
        *,
        session_id: str,
        question: str,
        multitask_strategy: MultitaskStrategy | NotGiven = NOT_GIVEN,
        route: str | NotGiven = NOT_GIVEN,
        attachments: list[str] | NotGiven = NOT_GIVEN,
        context_ids: list[str] | NotGiven = NOT_GIVEN,
        background: bool = False,
        options: RequestOptions | None = None,
    ) -> APIResponse[models.CompletionReply | models.RunAccepted]:
        """See CompletionsWithRawResponse.create."""
        body = _body(session_id, question, multitask_strategy, route, attachments, context_ids, background=background)
        response: APIResponse[Any] = await self._completions._request(
            "POST", _path(agent_id), body=body, cast_to=None, options={**(options or {}), "raw_response": True}
        )
        return APIResponse(response.http_response, _reply(response))
