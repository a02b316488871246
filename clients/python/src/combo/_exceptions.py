"""Errors: typed by the envelope's `code` (the service's error table), not by the HTTP status."""

from __future__ import annotations

from typing import Any

import httpx


class ComboError(Exception):
    """Base of every error this client raises."""


class APIError(ComboError):
    """The service answered with an error: its envelope's `code` types it (the subclasses below).

    A reply without the envelope (e.g. a proxy's error page) is a plain APIError whose `code` is None.
    """

    code: int | None
    status: int
    message: str
    data: dict[str, Any]
    trace_id: str | None
    response: httpx.Response | None

    def __init__(
        self,
        message: str,
        *,
        code: int | None,
        status: int,
        data: dict[str, Any] | None = None,
        trace_id: str | None = None,
        response: httpx.Response | None = None,
    ) -> None:
        text = f"{code}: {message}" if code is not None else f"HTTP {status}: {message}"
        super().__init__(f"{text} (trace {trace_id})" if trace_id else text)
        self.code = code
        self.status = status
        self.message = message
        self.data = data or {}
        self.trace_id = trace_id
        self.response = response


class ValidationError(APIError):
    """10001: the request is invalid; `field` names the offending field when the service says."""

    @property
    def field(self) -> str | None:
        value = self.data.get("field")
        return value if isinstance(value, str) else None


class AuthenticationError(APIError):
    """10002: missing or invalid credentials (or an inbound signature that does not verify)."""


class PermissionDeniedError(APIError):
    """10003: the key's roles do not allow this."""


class NotFoundError(APIError):
    """10004: the resource does not exist (or belongs to another tenant)."""


class ConflictError(APIError):
    """10005: the resource's state does not allow this (e.g. a session with a run going)."""


class RateLimitError(APIError):
    """10006: over the rate limit; `retry_after` is the service's Retry-After in seconds."""

    @property
    def retry_after(self) -> float | None:
        if self.response is None:
            return None
        value = self.response.headers.get("retry-after")
        try:
            return float(value) if value is not None else None
        except ValueError:
            return None


class InternalServerError(APIError):
    """20001: the service failed (or a dependency is down)."""


class UpstreamModelError(APIError):
    """30001: the language model failed after the service's retries."""


class UpstreamTimeoutError(APIError):
    """30002: an upstream call (model or tool) timed out."""


# The HTTP status each code is answered with: a run's error arrives in its event stream (HTTP 200),
# and is raised with the status the same error has as a reply.
STATUS_OF_CODE = {10001: 400, 10002: 401, 10003: 403, 10004: 404, 10005: 409, 10006: 429, 20001: 500, 30001: 502, 30002: 504}

ERRORS_BY_CODE: dict[int, type[APIError]] = {
    10001: ValidationError,
    10002: AuthenticationError,
    10003: PermissionDeniedError,
    10004: NotFoundError,
    10005: ConflictError,
    10006: RateLimitError,
    20001: InternalServerError,
    30001: UpstreamModelError,
    30002: UpstreamTimeoutError,
}


def error_for(
    code: int,
    message: str,
    *,
    status: int | None = None,
    data: dict[str, Any] | None = None,
    trace_id: str | None = None,
    response: httpx.Response | None = None,
) -> APIError:
    """The error class of a code (an unknown code: APIError itself)."""
    cls = ERRORS_BY_CODE.get(code, APIError)
    return cls(
        message,
        code=code,
        status=status if status is not None else STATUS_OF_CODE.get(code, 500),
        data=data,
        trace_id=trace_id,
        response=response,
    )


class APIConnectionError(ComboError):
    """The service could not be reached, or the connection broke, after the retries."""


class APITimeoutError(APIConnectionError):
    """A call took longer than its timeout, after the retries."""


class APIResponseValidationError(ComboError):
    """The service's reply does not match the client's model of it (a client older than the server?)."""
