"""The official Python client of the agent orchestration service's /v1 API.

from combo import Combo
client = Combo(base_url="http://127.0.0.1:9380", api_key="combo_...")
agent = client.agents.create(name="helper", instructions="Answer briefly.")
"""

from . import webhooks
from ._base_client import DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT
from ._client import AsyncCombo, Combo
from ._exceptions import (
    APIConnectionError,
    APIError,
    APIResponseValidationError,
    APITimeoutError,
    AuthenticationError,
    ComboError,
    ConflictError,
    InternalServerError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    UpstreamModelError,
    UpstreamTimeoutError,
    ValidationError,
)
from ._generated import models
from ._generated.models import *  # noqa: F403 (every schema, e.g. combo.Agent, combo.ThinkingEvent)
from ._pagination import AsyncPage, AsyncPaginator, SyncPage
from ._response import APIResponse, RateLimit
from ._streaming import AsyncStream, CompletionResult, Stream, StreamEvent, UnknownEvent
from ._types import NOT_GIVEN, NotGiven, RequestOptions
from ._version import __version__
from .webhooks import WebhookVerificationError

__all__ = [
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_TIMEOUT",
    "NOT_GIVEN",
    "APIConnectionError",
    "APIError",
    "APIResponse",
    "APIResponseValidationError",
    "APITimeoutError",
    "AsyncCombo",
    "AsyncPage",
    "AsyncPaginator",
    "AsyncStream",
    "AuthenticationError",
    "Combo",
    "ComboError",
    "CompletionResult",
    "ConflictError",
    "InternalServerError",
    "NotFoundError",
    "NotGiven",
    "PermissionDeniedError",
    "RateLimit",
    "RateLimitError",
    "RequestOptions",
    "Stream",
    "StreamEvent",
    "SyncPage",
    "UnknownEvent",
    "UpstreamModelError",
    "UpstreamTimeoutError",
    "ValidationError",
    "WebhookVerificationError",
    "__version__",
    "models",
    "webhooks",
]
