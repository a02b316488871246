"""The HTTP core: requests, retries, the envelope, typed errors. Sync and async share everything but I/O."""

from __future__ import annotations

import email.utils
import json
import os
import random
import time
import uuid
from typing import Any, Callable, TypeVar

import anyio
import httpx
import pydantic

from ._exceptions import APIConnectionError, APIError, APIResponseValidationError, APITimeoutError, error_for
from ._files import ProgressCallback, ProgressReader, open_upload
from ._response import APIResponse
from ._types import RequestOptions, path_segment, strip_not_given
from ._version import __version__

T = TypeVar("T")

DEFAULT_BASE_URL = "http://127.0.0.1:9380"
# Seconds: the service holds a JSON completion open for up to COMPLETION_REPLY_WAIT_MS (120 s by
# default) before its 202, so the default leaves it room (openai's is the same).
DEFAULT_TIMEOUT = 600.0
DEFAULT_MAX_RETRIES = 2
# Statuses retried on every operation; 502 and 504 only where the operation allows (reads, search).
RETRIED_STATUSES = {429, 500, 503}
GATEWAY_STATUSES = {502, 504}
MAX_RETRY_AFTER = 60.0
# A retry that arrives while the first attempt of its Idempotency-Key is still being processed is
# answered 409 (10005) naming the header, with Retry-After: waiting for that attempt is the retry.
_KEY_IN_USE_FIELD = "header.Idempotency-Key"


def normalize_base_url(base_url: str) -> str:
    """The service's root: with or without a trailing /v1 (and slash)."""
    url = base_url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


class _Prepared:
    """One call's request, rebuilt for every attempt (an upload is read again from its start)."""

    def __init__(self, kwargs: Callable[[], dict[str, Any]], to_close: list[Any]) -> None:
        self.kwargs = kwargs
        self.to_close = to_close

    def close(self) -> None:
        for f in self.to_close:
            f.close()


class BaseClient:
    def __init__(
        self,
        *,
        base_url: str | None,
        api_key: str | None,
        timeout: float | None,
        max_retries: int,
        default_headers: dict[str, str] | None,
        max_stream_resumes: int,
    ) -> None:
        self.base_url = normalize_base_url(base_url or os.environ.get("COMBO_BASE_URL") or DEFAULT_BASE_URL)
        self.api_key = api_key if api_key is not None else os.environ.get("COMBO_API_KEY")
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_stream_resumes = max_stream_resumes
        self._default_headers = dict(default_headers or {})

    # -- building ------------------------------------------------------------------------------

    def _headers(self, options: RequestOptions, method: str, *, anonymous: bool = False) -> httpx.Headers:
        # httpx.Headers: names compare case-insensitively, so a caller's `authorization` or
        # `idempotency-key` replaces the client's rather than joining it.
        headers = httpx.Headers({"Accept": "application/json", "User-Agent": f"combo-client-python/{__version__}"})
        if self.api_key and not anonymous:
            headers["Authorization"] = f"Bearer {self.api_key}"
        if method == "POST":
            headers["Idempotency-Key"] = options.get("idempotency_key") or str(uuid.uuid4())
        headers.update(self._default_headers)
        headers.update(options.get("extra_headers") or {})
        return headers

    def _timeout(self, options: RequestOptions) -> httpx.Timeout:
        seconds = options["timeout"] if "timeout" in options else self.timeout
        return httpx.Timeout(seconds, connect=None if seconds is None else min(10.0, seconds))

    def _prepare(
        self,
        method: str,
        path: str,
        options: RequestOptions,
        *,
        query: dict[str, Any] | None = None,
        body: dict[str, Any] | None = None,
        form: dict[str, Any] | None = None,
        on_progress: ProgressCallback | None = None,
        content: bytes | None = None,
        anonymous: bool = False,
        accept: str | None = None,
        last_event_id: str | None = None,
    ) -> _Prepared:
        params = {k: _query_value(v) for k, v in strip_not_given(query or {}).items() if v is not None}
        fields: dict[str, str] = {}
        upload: tuple[str, ProgressReader] | None = None
        to_close: list[Any] = []
        if form is not None:
            fields = {k: str(v) for k, v in strip_not_given(form).items() if k != "file" and v is not None}
            if form.get("file") is not None:
                name, reader, to_close = open_upload(form["file"], on_progress)
                upload = (name, reader)

        def kwargs() -> dict[str, Any]:
            headers = self._headers(options, method, anonymous=anonymous)
            if accept:
                headers["Accept"] = accept
            if last_event_id:
                headers["Last-Event-ID"] = last_event_id
            built: dict[str, Any] = {"method": method, "url": self.base_url + path, "headers": headers, "timeout": self._timeout(options)}
            if params:
                built["params"] = params
            if body is not None:
                built["json"] = strip_not_given(body)
            if content is not None:
                built["content"] = content
                headers.setdefault("Content-Type", "application/json")
            if form is not None:
                built["data"] = fields
                if upload is not None:
                    upload[1].restart()  # every attempt sends the whole file, its progress from 0
                    built["files"] = {"file": upload}
            return built

        return _Prepared(kwargs, to_close)

    # -- retrying ------------------------------------------------------------------------------

    def _max_retries(self, options: RequestOptions) -> int:
        return options.get("max_retries", self.max_retries)

    @staticmethod
    def _retryable(response: httpx.Response, retry_gateway_errors: bool) -> bool:
        status = response.status_code
        if status in RETRIED_STATUSES or (retry_gateway_errors and status in GATEWAY_STATUSES):
            return True
        if status == 409 and response.headers.get("retry-after") is not None:
            envelope = _json(response)
            data = envelope.get("data") if isinstance(envelope, dict) else None
            return isinstance(data, dict) and data.get("field") == _KEY_IN_USE_FIELD
        return False

    @staticmethod
    def _retry_delay(attempt: int, response: httpx.Response | None) -> float:
        """Retry-After when the service gives it, else 0.5 s doubling up to 8 s, with jitter."""
        if response is not None:
            after = _retry_after(response.headers.get("retry-after"))
            if after is not None:
                return min(after, MAX_RETRY_AFTER)
        return min(0.5 * 2.0**attempt, 8.0) * (1 - 0.25 * random.random())

    # -- answering -----------------------------------------------------------------------------

    @staticmethod
    def _raise_for_error(response: httpx.Response) -> None:
        """Raises the typed error of a non-2xx response (its body already read)."""
        if response.is_success:
            return
        envelope = _json(response)
        trace_id = response.headers.get("x-trace-id")
        if isinstance(envelope, dict) and isinstance(envelope.get("code"), int) and envelope["code"] != 0:
            data: dict[str, Any] = envelope["data"] if isinstance(envelope.get("data"), dict) else {}
            message = str(envelope.get("message", ""))
            raise error_for(
                envelope["code"],
                message,
                status=response.status_code,
                data=data,
                trace_id=data.get("trace_id") or trace_id,
                response=response,
            )
        # Not the service's envelope (a proxy's error page): no code to type it by.
        raise APIError(
            response.reason_phrase or f"HTTP {response.status_code}",
            code=None,
            status=response.status_code,
            trace_id=trace_id,
            response=response,
        )

    @staticmethod
    def _parse(response: httpx.Response, cast_to: Any) -> Any:
        BaseClient._raise_for_error(response)
        envelope = _json(response)
        if not (isinstance(envelope, dict) and "code" in envelope and "data" in envelope):
            return envelope  # a reply without the envelope (the OpenAPI document)
        if cast_to is None:
            return envelope["data"]
        try:
            return pydantic.TypeAdapter(cast_to).validate_python(envelope["data"])
        except pydantic.ValidationError as err:
            request = response.request
            raise APIResponseValidationError(f"the reply of {request.method} {request.url.path} does not match {cast_to}: {err}") from err

    @staticmethod
    def _call_options(method: str, options: RequestOptions | None, retried: bool) -> RequestOptions:
        opts = RequestOptions(**(options or {}))
        # One key for every attempt of this call, so a retried POST acts once.
        if method == "POST":
            opts.setdefault("idempotency_key", str(uuid.uuid4()))
        if not retried:
            opts.setdefault("max_retries", 0)
        return opts


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except (json.JSONDecodeError, UnicodeDecodeError, httpx.ResponseNotRead):
        return None


def _query_value(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return value


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _read_options(options: RequestOptions | None) -> RequestOptions:
    """A call's options for reading its run's events: its timeout and headers, not its POST's key."""
    read = RequestOptions(**(options or {}))
    read.pop("idempotency_key", None)
    read.pop("raw_response", None)
    return read


def _page_options(options: RequestOptions) -> RequestOptions:
    page_options = RequestOptions(**options)
    page_options.pop("raw_response", None)
    return page_options


class SyncAPIClient(BaseClient):
    def __init__(self, *, http_client: httpx.Client | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._client = http_client or httpx.Client(follow_redirects=False)

    def close(self) -> None:
        self._client.close()

    def __enter__(self: T) -> T:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _send(self, prepared: _Prepared, options: RequestOptions, retry_gateway_errors: bool, *, stream: bool = False) -> httpx.Response:
        """Sends with retries; answers the response of the last attempt (a stream's still open when 2xx)."""
        retries = self._max_retries(options)
        for attempt in range(retries + 1):
            last = attempt == retries
            try:
                response = self._client.send(self._client.build_request(**prepared.kwargs()), stream=stream)
            except httpx.TimeoutException as err:
                if last:
                    raise APITimeoutError(f"the request timed out: {err}") from err
                time.sleep(self._retry_delay(attempt, None))
                continue
            except httpx.TransportError as err:
                if last:
                    raise APIConnectionError(f"the service could not be reached: {err}") from err
                time.sleep(self._retry_delay(attempt, None))
                continue
            if stream and not response.is_success:
                response.read()
            if last or not self._retryable(response, retry_gateway_errors):
                return response
            response.close()
            time.sleep(self._retry_delay(attempt, response))
        raise AssertionError("unreachable")

    def _open_stream(
        self,
        method: str,
        path: str,
        *,
        body: dict[str, Any] | None = None,
        last_event_id: str | None = None,
        options: RequestOptions | None = None,
    ) -> httpx.Response:
        """An open text/event-stream response (errors raised typed), after the same retries as any call."""
        opts = self._call_options(method, options, True)
        prepared = self._prepare(method, path, opts, body=body, accept="text/event-stream", last_event_id=last_event_id)
        response = self._send(prepared, opts, method == "GET", stream=True)
        self._raise_for_error(response)
        return response

    def _open_events(
        self, trace_id: str, last_event_id: str | None, options: RequestOptions | None = None, *, stream_format: str = "answer"
    ) -> httpx.Response:
        # Resumed in the format asked for: the events after the last one received, as it would have sent them.
        path = f"/v1/combo/completions/{path_segment(trace_id)}/events" + ("?stream_format=delta" if stream_format == "delta" else "")
        return self._open_stream("GET", path, last_event_id=last_event_id, options=_read_options(options))

    def _request(
        self,
        method: str,
        path: str,
        *,
        query: dict[str, Any] | None = None,
        body: dict[str, Any] | None = None,
        form: dict[str, Any] | None = None,
        on_progress: ProgressCallback | None = None,
        cast_to: Any,
        page_of: Any = None,
        retry_gateway_errors: bool = False,
        retried: bool = True,
        options: RequestOptions | None = None,
        content: bytes | None = None,
        anonymous: bool = False,
    ) -> Any:
        opts = self._call_options(method, options, retried)
        prepared = self._prepare(
            method, path, opts, query=query, body=body, form=form, on_progress=on_progress, content=content, anonymous=anonymous
        )
        try:
            response = self._send(prepared, opts, retry_gateway_errors)
        finally:
            prepared.close()
        parsed = self._parse(response, cast_to)
        if page_of is not None:
            from ._pagination import SyncPage

            def fetch(page: int) -> Any:
                query_of_page = {**(query or {}), "page": page}
                return self._request(
                    method,
                    path,
                    query=query_of_page,
                    cast_to=cast_to,
                    page_of=page_of,
                    retry_gateway_errors=retry_gateway_errors,
                    options=_page_options(opts),
                )

            parsed = SyncPage(parsed, fetch)
        return APIResponse(response, parsed) if opts.get("raw_response") else parsed


class AsyncAPIClient(BaseClient):
    def __init__(self, *, http_client: httpx.AsyncClient | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._client = http_client or httpx.AsyncClient(follow_redirects=False)

    async def close(self) -> None:
        await self._client.aclose()

    async def __aenter__(self: T) -> T:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()

    async def _send(
        self, prepared: _Prepared, options: RequestOptions, retry_gateway_errors: bool, *, stream: bool = False
    ) -> httpx.Response:
        retries = self._max_retries(options)
        for attempt in range(retries + 1):
            last = attempt == retries
            try:
                response = await self._client.send(self._client.build_request(**prepared.kwargs()), stream=stream)
            except httpx.TimeoutException as err:
                if last:
                    raise APITimeoutError(f"the request timed out: {err}") from err
                await anyio.sleep(self._retry_delay(attempt, None))
                continue
            except httpx.TransportError as err:
                if last:
                    raise APIConnectionError(f"the service could not be reached: {err}") from err
                await anyio.sleep(self._retry_delay(attempt, None))
                continue
            if stream and not response.is_success:
                await response.aread()
            if last or not self._retryable(response, retry_gateway_errors):
                return response
            await response.aclose()
            await anyio.sleep(self._retry_delay(attempt, response))
        raise AssertionError("unreachable")

    async def _open_stream(
        self,
        method: str,
        path: str,
        *,
        body: dict[str, Any] | None = None,
        last_event_id: str | None = None,
        options: RequestOptions | None = None,
    ) -> httpx.Response:
        opts = self._call_options(method, options, True)
        prepared = self._prepare(method, path, opts, body=body, accept="text/event-stream", last_event_id=last_event_id)
        response = await self._send(prepared, opts, method == "GET", stream=True)
        self._raise_for_error(response)
        return response

    async def _open_events(
        self, trace_id: str, last_event_id: str | None, options: RequestOptions | None = None, *, stream_format: str = "answer"
    ) -> httpx.Response:
        path = f"/v1/combo/completions/{path_segment(trace_id)}/events" + ("?stream_format=delta" if stream_format == "delta" else "")
        return await self._open_stream("GET", path, last_event_id=last_event_id, options=_read_options(options))

    async def _request(
        self,
        method: str,
        path: str,
        *,
        query: dict[str, Any] | None = None,
        body: dict[str, Any] | None = None,
        form: dict[str, Any] | None = None,
        on_progress: ProgressCallback | None = None,
        cast_to: Any,
        page_of: Any = None,
        retry_gateway_errors: bool = False,
        retried: bool = True,
        options: RequestOptions | None = None,
        content: bytes | None = None,
        anonymous: bool = False,
    ) -> Any:
        opts = self._call_options(method, options, retried)
        # httpx reads a sync file object in pieces in an async client too: progress stays real.
        prepared = self._prepare(
            method, path, opts, query=query, body=body, form=form, on_progress=on_progress, content=content, anonymous=anonymous
        )
        try:
            response = await self._send(prepared, opts, retry_gateway_errors)
        finally:
            prepared.close()
        parsed = self._parse(response, cast_to)
        if page_of is not None:
            from ._pagination import AsyncPage

            async def fetch(page: int) -> Any:
                query_of_page = {**(query or {}), "page": page}
                return await self._request(
                    method,
                    path,
                    query=query_of_page,
                    cast_to=cast_to,
                    page_of=page_of,
                    retry_gateway_errors=retry_gateway_errors,
                    options=_page_options(opts),
                )

            parsed = AsyncPage(parsed, fetch)
        return APIResponse(response, parsed) if opts.get("raw_response") else parsed
