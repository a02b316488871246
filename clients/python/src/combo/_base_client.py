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

from ._exceptions import APIConnectionError, APIResponseValidationError, APITimeoutError, error_for
from ._files import FileInput, ProgressCallback, open_upload
from ._response import APIResponse
from ._types import RequestOptions, path_segment, strip_not_given
from ._version import __version__

T = TypeVar("T")

DEFAULT_BASE_URL = "http://127.0.0.1:9380"
DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_RETRIES = 2
# Statuses retried on every operation; 502 and 504 only where the operation allows (reads, search).
RETRIED_STATUSES = {429, 500, 503}
GATEWAY_STATUSES = {502, 504}
# When a proxy answers without the service's envelope, the code its status stands for.
CODE_OF_STATUS = {400: 10001, 401: 10002, 403: 10003, 404: 10004, 409: 10005, 429: 10006}
MAX_RETRY_AFTER = 60.0


def normalize_base_url(base_url: str) -> str:
    """The service's root: with or without a trailing /v1 (and slash)."""
    url = base_url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


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

    def _headers(self, options: RequestOptions, method: str) -> dict[str, str]:
        headers = {"Accept": "application/json", "User-Agent": f"combo-client-python/{__version__}"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        if method == "POST":
            headers["Idempotency-Key"] = options.get("idempotency_key") or str(uuid.uuid4())
        headers.update(self._default_headers)
        headers.update(options.get("extra_headers") or {})
        return headers

    def _timeout(self, options: RequestOptions) -> httpx.Timeout:
        seconds = options["timeout"] if "timeout" in options else self.timeout
        return httpx.Timeout(seconds, connect=None if seconds is None else min(10.0, seconds))

    def _build_kwargs(
        self,
        method: str,
        path: str,
        *,
        query: dict[str, Any] | None,
        body: dict[str, Any] | None,
        options: RequestOptions,
        content: bytes | None = None,
        anonymous: bool = False,
    ) -> dict[str, Any]:
        headers = self._headers(options, method)
        if anonymous:
            headers.pop("Authorization", None)
        kwargs: dict[str, Any] = {"method": method, "url": self.base_url + path, "headers": headers, "timeout": self._timeout(options)}
        if content is not None:
            kwargs["content"] = content
            headers["Content-Type"] = "application/json"
        if query:
            kwargs["params"] = {k: _query_value(v) for k, v in strip_not_given(query).items() if v is not None}
        if body is not None:
            kwargs["json"] = strip_not_given(body)
        return kwargs

    # -- retrying ------------------------------------------------------------------------------

    def _max_retries(self, options: RequestOptions) -> int:
        return options.get("max_retries", self.max_retries)

    @staticmethod
    def _retryable(response: httpx.Response, retry_gateway_errors: bool) -> bool:
        return response.status_code in RETRIED_STATUSES or (retry_gateway_errors and response.status_code in GATEWAY_STATUSES)

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
        if isinstance(envelope, dict) and isinstance(envelope.get("code"), int) and envelope["code"] != 0:
            data: dict[str, Any] = envelope["data"] if isinstance(envelope.get("data"), dict) else {}
            trace_id = data.get("trace_id") or response.headers.get("x-trace-id")
            raise error_for(
                envelope["code"],
                str(envelope.get("message", "")),
                status=response.status_code,
                data=data,
                trace_id=trace_id,
                response=response,
            )
        code = CODE_OF_STATUS.get(response.status_code, 20001)
        raise error_for(
            code,
            response.reason_phrase or f"HTTP {response.status_code}",
            status=response.status_code,
            trace_id=response.headers.get("x-trace-id"),
            response=response,
        )

    @staticmethod
    def _parse(response: httpx.Response, cast_to: Any) -> Any:
        BaseClient._raise_for_error(response)
        envelope = _json(response)
        if not (isinstance(envelope, dict) and "code" in envelope and "data" in envelope):
            return envelope  # a reply without the envelope (the OpenAPI document)
        if envelope["code"] != 0:
            BaseClient._raise_for_error(response)
        if cast_to is None:
            return envelope["data"]
        try:
            return pydantic.TypeAdapter(cast_to).validate_python(envelope["data"])
        except pydantic.ValidationError as err:
            raise APIResponseValidationError(
                f"the reply of {response.request.method} {response.request.url.path} does not match {cast_to}: {err}"
            ) from err


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
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


def _form_fields(form: dict[str, Any]) -> tuple[dict[str, str], FileInput | None]:
    fields = {k: str(v) for k, v in strip_not_given(form).items() if k != "file" and v is not None}
    return fields, form.get("file")


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

    def _send(
        self, build: Callable[[], dict[str, Any]], options: RequestOptions, retry_gateway_errors: bool, *, stream: bool = False
    ) -> httpx.Response:
        """Sends with retries; answers the response of the last attempt (a stream's still open when 2xx)."""
        retries = self._max_retries(options)
        for attempt in range(retries + 1):
            last = attempt == retries
            try:
                response = self._client.send(self._client.build_request(**build()), stream=stream)
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
            if last or not self._retryable(response, retry_gateway_errors):
                if stream and not response.is_success:
                    response.read()
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
        opts = RequestOptions(**(options or {}))
        if method == "POST":
            opts.setdefault("idempotency_key", str(uuid.uuid4()))

        def build() -> dict[str, Any]:
            kwargs = self._build_kwargs(method, path, query=None, body=body, options=opts)
            kwargs["headers"]["Accept"] = "text/event-stream"
            if last_event_id:
                kwargs["headers"]["Last-Event-ID"] = last_event_id
            return kwargs

        response = self._send(build, opts, method == "GET", stream=True)
        self._raise_for_error(response)
        return response

    def _open_events(self, trace_id: str, last_event_id: str | None) -> httpx.Response:
        return self._open_stream("GET", f"/v1/combo/completions/{path_segment(trace_id)}/events", last_event_id=last_event_id)

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
        options: RequestOptions | None = None,
        content: bytes | None = None,
        anonymous: bool = False,
    ) -> Any:
        options = RequestOptions(**(options or {}))
        # One key for every attempt of this call, so a retried POST acts once.
        if method == "POST":
            options.setdefault("idempotency_key", str(uuid.uuid4()))
        to_close: list[Any] = []
        try:
            if form is not None:
                fields, file = _form_fields(form)
                name, reader, to_close = open_upload(file, on_progress) if file is not None else (None, None, [])

                def build() -> dict[str, Any]:
                    kwargs = self._build_kwargs(method, path, query=query, body=None, options=options)
                    kwargs["data"] = fields
                    if reader is not None:
                        reader.seek(0)
                        kwargs["files"] = {"file": (name, reader)}
                    return kwargs
            else:

                def build() -> dict[str, Any]:
                    return self._build_kwargs(method, path, query=query, body=body, options=options, content=content, anonymous=anonymous)

            response = self._send(build, options, retry_gateway_errors)
        finally:
            for f in to_close:
                f.close()
        parsed = self._parse(response, cast_to)
        if page_of is not None:
            from ._pagination import SyncPage

            page_options = RequestOptions(**options)
            page_options.pop("raw_response", None)

            def fetch(page: int) -> Any:
                return self._request(
                    method,
                    path,
                    query={**(query or {}), "page": page},
                    cast_to=cast_to,
                    page_of=page_of,
                    retry_gateway_errors=retry_gateway_errors,
                    options=page_options,
                )

            parsed = SyncPage(parsed, fetch)
        return APIResponse(response, parsed) if options.get("raw_response") else parsed


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
        self, build: Callable[[], dict[str, Any]], options: RequestOptions, retry_gateway_errors: bool, *, stream: bool = False
    ) -> httpx.Response:
        retries = self._max_retries(options)
        for attempt in range(retries + 1):
            last = attempt == retries
            try:
                response = await self._client.send(self._client.build_request(**build()), stream=stream)
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
            if last or not self._retryable(response, retry_gateway_errors):
                if stream and not response.is_success:
                    await response.aread()
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
        """An open text/event-stream response (errors raised typed), after the same retries as any call."""
        opts = RequestOptions(**(options or {}))
        if method == "POST":
            opts.setdefault("idempotency_key", str(uuid.uuid4()))

        def build() -> dict[str, Any]:
            kwargs = self._build_kwargs(method, path, query=None, body=body, options=opts)
            kwargs["headers"]["Accept"] = "text/event-stream"
            if last_event_id:
                kwargs["headers"]["Last-Event-ID"] = last_event_id
            return kwargs

        response = await self._send(build, opts, method == "GET", stream=True)
        self._raise_for_error(response)
        return response

    async def _open_events(self, trace_id: str, last_event_id: str | None) -> httpx.Response:
        return await self._open_stream("GET", f"/v1/combo/completions/{path_segment(trace_id)}/events", last_event_id=last_event_id)

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
        options: RequestOptions | None = None,
        content: bytes | None = None,
        anonymous: bool = False,
    ) -> Any:
        options = RequestOptions(**(options or {}))
        if method == "POST":
            options.setdefault("idempotency_key", str(uuid.uuid4()))
        to_close: list[Any] = []
        try:
            if form is not None:
                fields, file = _form_fields(form)
                name, reader, to_close = open_upload(file, on_progress) if file is not None else (None, None, [])
                # httpx sends a multipart body whole in an async client: read it through the
                # progress reader first, so the callback still reports every byte.
                content = reader.read() if reader is not None else None

                def build() -> dict[str, Any]:
                    kwargs = self._build_kwargs(method, path, query=query, body=None, options=options)
                    kwargs["data"] = fields
                    if content is not None:
                        kwargs["files"] = {"file": (name, content)}
                    return kwargs
            else:

                def build() -> dict[str, Any]:
                    return self._build_kwargs(method, path, query=query, body=body, options=options, content=content, anonymous=anonymous)

            response = await self._send(build, options, retry_gateway_errors)
        finally:
            for f in to_close:
                f.close()
        parsed = self._parse(response, cast_to)
        if page_of is not None:
            from ._pagination import AsyncPage

            page_options = RequestOptions(**options)
            page_options.pop("raw_response", None)

            async def fetch(page: int) -> Any:
                return await self._request(
                    method,
                    path,
                    query={**(query or {}), "page": page},
                    cast_to=cast_to,
                    page_of=page_of,
                    retry_gateway_errors=retry_gateway_errors,
                    options=page_options,
                )

            parsed = AsyncPage(parsed, fetch)
        return APIResponse(response, parsed) if options.get("raw_response") else parsed
