"""A run's event stream: typed events, resumed after a dropped connection with Last-Event-ID."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any, AsyncGenerator, AsyncIterator, Awaitable, Callable, Generator, Iterator, Union

import anyio
import httpx
import pydantic
from httpx_sse import EventSource

from ._exceptions import APIConnectionError, error_for
from ._generated import models
from ._models import BaseModel
from ._response import RateLimit
from ._types import RequestOptions

if TYPE_CHECKING:
    from ._base_client import AsyncAPIClient, SyncAPIClient


class UnknownEvent(BaseModel):
    """An event this client does not know yet (the service added it later)."""

    event: str
    id: str
    data: Any = None


StreamEvent = Union[models.CompletionEvent, UnknownEvent]
"""ThinkingEvent, ToolCallEvent, ApprovalRequiredEvent, ApprovalDecidedEvent, ToolResultEvent,
MessageEvent, ErrorEvent, DoneEvent, or an UnknownEvent."""

_EVENT = pydantic.TypeAdapter(models.CompletionEvent)
# Failures that a reconnection can cure (the service's events are stored: nothing is lost).
_DROPPED = (httpx.TransportError,)


class CompletionResult(BaseModel):
    """What a finished stream gave: the answer, its references and the run's cost."""

    trace_id: str
    session_id: str
    answer: str
    reference: list[models.Reference] = pydantic.Field(default_factory=list)
    cost: models.Cost | None = None
    stop_reason: str | None = None
    """Why the run ended: `answered`, `step_limit`, `token_limit` or `canceled`."""
    route: str | None = None
    """The route the run took (from its `accepted` event)."""
    offline: bool = False
    """True when no language model is configured: the answer quotes knowledge-base passages."""


def _sequence(event_id: str) -> tuple[str, int] | None:
    """`<trace_id>:<n>` → (trace_id, n)."""
    trace_id, sep, n = event_id.rpartition(":")
    return (trace_id, int(n)) if sep and n.isdigit() else None


class _StreamState:
    """What both stream kinds track: order, the trace id, and what `final()` answers."""

    def __init__(self, trace_id: str | None, last_event_id: str | None, max_resumes: int) -> None:
        self.trace_id = trace_id
        self.last_event_id = last_event_id
        self.last_n = -1
        if last_event_id and (seq := _sequence(last_event_id)):
            self.trace_id = self.trace_id or seq[0]
            self.last_n = seq[1]
        self.max_resumes = max_resumes
        self.resumes = 0
        self.done = False
        self.answer = ""
        self.reference: list[models.Reference] = []
        self.error: models.StreamEventError | None = None
        self.end: models.StreamEventDone | None = None
        self.route: str | None = None
        self.offline = False

    def accept(self, event_name: str, event_id: str, data: str) -> StreamEvent | None:
        """The typed event, or None for one already seen (a resume may send it again)."""
        seq = _sequence(event_id) if event_id else None
        if seq is not None:
            if seq[1] <= self.last_n:
                return None
            self.trace_id = self.trace_id or seq[0]
            self.last_n = seq[1]
        self.resumes = 0  # the limit counts failures in a row: an event resets it
        if event_id:
            self.last_event_id = event_id
        payload = json.loads(data) if data else None
        try:
            event: StreamEvent = _EVENT.validate_python({"event": event_name, "id": event_id, "data": payload})
        except pydantic.ValidationError:
            return UnknownEvent(event=event_name, id=event_id, data=payload)
        if isinstance(event, models.MessageEvent):
            # `stream_format="delta"`: only the new text, and the whole answer on the last message.
            if event.data.answer is not None:
                self.answer = event.data.answer
            elif event.data.delta is not None:
                self.answer += event.data.delta
            if event.data.reference is not None:
                self.reference = event.data.reference
        elif isinstance(event, models.ThinkingEvent) and event.data.phase == "accepted":
            self.trace_id = self.trace_id or event.data.trace_id
            self.route = event.data.route
            self.offline = bool(event.data.offline)
        elif isinstance(event, models.ErrorEvent):
            self.error = event.data
        elif isinstance(event, models.DoneEvent):
            self.end = event.data
            self.done = True
        return event

    def resume_or_raise(self, err: Exception | None) -> float:
        """Counts a failed connection; answers how long to wait before the next, or raises past the limit."""
        if self.resumes >= self.max_resumes:
            raise APIConnectionError(f"the event stream failed {self.resumes + 1} times in a row: {err or 'it ended early'}") from err
        self.resumes += 1
        return min(0.25 * 2.0 ** (self.resumes - 1), 4.0)

    def result(self) -> CompletionResult:
        if self.error is not None:
            # A run's error arrives in its stream: raised with the status the same error has as a reply.
            raise error_for(self.error.code, self.error.message, trace_id=self.trace_id)
        if self.end is None:
            raise APIConnectionError("the stream was closed before the run's `done` event")
        return CompletionResult(
            trace_id=self.end.trace_id,
            session_id=self.end.session_id,
            answer=self.answer,
            reference=self.reference,
            cost=self.end.cost,
            stop_reason=self.end.stop_reason,
            route=self.route,
            offline=self.offline,
        )


class Stream:
    """Iterate it for the run's events; `final()` answers the result once `done` arrived.

    The request is sent when the stream is made (its errors are raised there). A dropped
    connection is reopened with Last-Event-ID, up to `max_stream_resumes` failures in a row; each
    event is seen once, in order. Closing the stream (or leaving its `with` block) closes the
    connection; the run goes on.
    """

    def __init__(
        self,
        client: SyncAPIClient,
        open_first: Callable[[str | None], httpx.Response] | None,
        *,
        trace_id: str | None = None,
        last_event_id: str | None = None,
        options: RequestOptions | None = None,
        stream_format: str = "answer",
    ) -> None:
        self._client = client
        self._open_first = open_first
        self._options = options
        self._stream_format = stream_format
        self._state = _StreamState(trace_id, last_event_id, client.max_stream_resumes)
        self.response: httpx.Response = self._open()
        """The HTTP response of the current connection (its headers: trace id, rate limit)."""
        self._iterator: Generator[StreamEvent, None, None] = self._events()

    @property
    def trace_id(self) -> str | None:
        return self._state.trace_id

    @property
    def headers(self) -> httpx.Headers:
        return self.response.headers

    @property
    def rate_limit(self) -> RateLimit:
        return RateLimit(self.response.headers)

    def _open(self) -> httpx.Response:
        state = self._state
        if state.trace_id is None and self._open_first is not None:
            return self._open_first(state.last_event_id)
        assert state.trace_id is not None
        return self._client._open_events(state.trace_id, state.last_event_id, self._options, stream_format=self._stream_format)

    def _events(self) -> Generator[StreamEvent, None, None]:
        state = self._state
        response: httpx.Response | None = self.response
        while not state.done:
            failure: Exception | None = None
            try:
                if response is None:
                    response = self.response = self._open()
                for sse in EventSource(response).iter_sse():
                    event = state.accept(sse.event, sse.id, sse.data)
                    if event is not None:
                        yield event
                    if state.done:
                        break
            except _DROPPED as err:
                failure = err
            except APIConnectionError as err:  # a reconnection that failed through its retries
                failure = err
            finally:
                if response is not None:
                    response.close()
            response = None
            if not state.done:
                time.sleep(state.resume_or_raise(failure))

    def __iter__(self) -> Iterator[StreamEvent]:
        return self._iterator

    def __next__(self) -> StreamEvent:
        return next(self._iterator)

    def final(self) -> CompletionResult:
        """Reads what is left and answers the result; raises the run's error if it failed."""
        for _ in self._iterator:
            pass
        return self._state.result()

    def close(self) -> None:
        self._iterator.close()
        self.response.close()

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class AsyncStream:
    """The async form of Stream: `async with client.completions.stream(...) as stream`, `async for`, `await final()`.

    The request is sent when the stream is awaited (`stream = await client.completions.stream(...)`),
    entered or first iterated; its errors are raised there.
    """

    def __init__(
        self,
        client: AsyncAPIClient,
        open_first: Callable[[str | None], Awaitable[httpx.Response]] | None,
        *,
        trace_id: str | None = None,
        last_event_id: str | None = None,
        options: RequestOptions | None = None,
        stream_format: str = "answer",
    ) -> None:
        self._client = client
        self._open_first = open_first
        self._options = options
        self._stream_format = stream_format
        self._state = _StreamState(trace_id, last_event_id, client.max_stream_resumes)
        self.response: httpx.Response | None = None
        self._iterator: AsyncGenerator[StreamEvent, None] = self._events()

    async def start(self) -> AsyncStream:
        """Sends the request (the stream methods do it): its errors are raised here."""
        if self.response is None:
            self.response = await self._open()
        return self

    @property
    def trace_id(self) -> str | None:
        return self._state.trace_id

    @property
    def headers(self) -> httpx.Headers:
        assert self.response is not None, "the stream is not started"
        return self.response.headers

    @property
    def rate_limit(self) -> RateLimit:
        return RateLimit(self.headers)

    async def _open(self) -> httpx.Response:
        state = self._state
        if state.trace_id is None and self._open_first is not None:
            return await self._open_first(state.last_event_id)
        assert state.trace_id is not None
        return await self._client._open_events(state.trace_id, state.last_event_id, self._options, stream_format=self._stream_format)

    async def _events(self) -> AsyncGenerator[StreamEvent, None]:
        state = self._state
        await self.start()
        response: httpx.Response | None = self.response
        while not state.done:
            failure: Exception | None = None
            try:
                if response is None:
                    response = self.response = await self._open()
                async for sse in EventSource(response).aiter_sse():
                    event = state.accept(sse.event, sse.id, sse.data)
                    if event is not None:
                        yield event
                    if state.done:
                        break
            except _DROPPED as err:
                failure = err
            except APIConnectionError as err:
                failure = err
            finally:
                if response is not None:
                    await response.aclose()
            response = None
            if not state.done:
                await anyio.sleep(state.resume_or_raise(failure))

    def __aiter__(self) -> AsyncIterator[StreamEvent]:
        return self._iterator

    async def __anext__(self) -> StreamEvent:
        return await self._iterator.__anext__()

    async def final(self) -> CompletionResult:
        async for _ in self._iterator:
            pass
        return self._state.result()

    async def close(self) -> None:
        await self._iterator.aclose()
        if self.response is not None:
            await self.response.aclose()

    def __await__(self) -> Generator[Any, None, AsyncStream]:
        return self.start().__await__()

    async def __aenter__(self) -> AsyncStream:
        return await self.start()

    async def __aexit__(self, *_: object) -> None:
        await self.close()


__all__ = ["AsyncStream", "CompletionResult", "Stream", "StreamEvent", "UnknownEvent"]
