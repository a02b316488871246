"""Runs: the generated operations plus `events`, any run's resumable event stream."""

from __future__ import annotations

from .._generated.resources import AsyncRuns as GeneratedAsyncRuns
from .._generated.resources import Runs as GeneratedRuns
from .._streaming import AsyncStream, Stream
from .._types import RequestOptions


class Runs(GeneratedRuns):
    def events(self, trace_id: str, *, last_event_id: str | None = None, options: RequestOptions | None = None) -> Stream:
        """A run's events (any run: streamed or not, API, trigger or cron), from the first or after `last_event_id`.

        The stream ends with `done`; a dropped connection is resumed where it broke.
        """
        return Stream(self._client, None, trace_id=trace_id, last_event_id=last_event_id, options=options)


class AsyncRuns(GeneratedAsyncRuns):
    def events(self, trace_id: str, *, last_event_id: str | None = None, options: RequestOptions | None = None) -> AsyncStream:
        """A run's events; see Runs.events."""
        return AsyncStream(self._client, None, trace_id=trace_id, last_event_id=last_event_id, options=options)
