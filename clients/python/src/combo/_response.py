"""The raw HTTP response of a call, beside its parsed model (`with_raw_response`)."""

from __future__ import annotations

import functools
from typing import Any, Awaitable, Callable, Generic, TypeVar, cast

import httpx
from typing_extensions import ParamSpec

T = TypeVar("T")
P = ParamSpec("P")


class RateLimit:
    """The X-RateLimit-* headers of a response."""

    def __init__(self, headers: httpx.Headers) -> None:
        def number(name: str) -> int | None:
            value = headers.get(name)
            return int(value) if value is not None and value.isdigit() else None

        self.limit = number("x-ratelimit-limit")
        self.remaining = number("x-ratelimit-remaining")
        self.reset = number("x-ratelimit-reset")
        """End of the window, Unix seconds."""

    def __repr__(self) -> str:
        return f"RateLimit(limit={self.limit}, remaining={self.remaining}, reset={self.reset})"


class APIResponse(Generic[T]):
    """An HTTP response and the model parsed from its envelope."""

    def __init__(self, http_response: httpx.Response, parsed: T) -> None:
        self.http_response = http_response
        self._parsed = parsed

    def parse(self) -> T:
        return self._parsed

    @property
    def status_code(self) -> int:
        return self.http_response.status_code

    @property
    def headers(self) -> httpx.Headers:
        return self.http_response.headers

    @property
    def trace_id(self) -> str | None:
        """X-Trace-Id: the request's trace id (give it when reporting a problem)."""
        return cast("str | None", self.http_response.headers.get("x-trace-id"))

    @property
    def rate_limit(self) -> RateLimit:
        return RateLimit(self.http_response.headers)

    @property
    def idempotent_replayed(self) -> bool:
        """The service answered the kept first response to this Idempotency-Key."""
        return bool(self.http_response.headers.get("idempotent-replayed") == "true")


def _raw(kwargs: dict[str, Any]) -> dict[str, Any]:
    options = dict(kwargs.get("options") or {})
    options["raw_response"] = True
    return {**kwargs, "options": options}


def to_raw_response(func: Callable[P, T]) -> Callable[P, APIResponse[T]]:
    @functools.wraps(func)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> APIResponse[T]:
        return cast(APIResponse[T], func(*args, **_raw(kwargs)))

    return wrapped


def async_to_raw_response(func: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[APIResponse[T]]]:
    @functools.wraps(func)
    async def wrapped(*args: P.args, **kwargs: P.kwargs) -> APIResponse[T]:
        return cast(APIResponse[T], await func(*args, **_raw(kwargs)))

    return wrapped
