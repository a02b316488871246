"""Signatures of webhook calls: verify the service's outbound deliveries, sign inbound calls to it.

Both use `X-Combo-Signature: sha256=<lowercase hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>`
and `X-Combo-Timestamp` (Unix seconds). During a secret rotation's grace a delivery carries two
signatures (`sha256=<new>,sha256=<old>`); any may match.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import uuid
from typing import Any, Iterable, Mapping, Protocol, Union

import pydantic

from ._exceptions import ComboError
from ._generated import models

DEFAULT_TOLERANCE_SECONDS = 300


class _HeaderItems(Protocol):
    def items(self) -> Iterable[tuple[str, Any]]: ...


Headers = Union[Mapping[str, Any], _HeaderItems]
"""A mapping of header names (any case) to values, or anything with `items()` (e.g. http.server's headers)."""


class WebhookVerificationError(ComboError):
    """The delivery's signature or timestamp does not verify: do not act on it."""


def _signature(secret: str, timestamp: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()


def _header(headers: Headers, name: str) -> str:
    for key, value in headers.items():
        if key.lower() == name:
            return value if isinstance(value, str) else str(value)
    return ""


def verify(
    payload: bytes | str,
    headers: Headers,
    secret: str | list[str],
    *,
    tolerance: float = DEFAULT_TOLERANCE_SECONDS,
    now: float | None = None,
) -> models.Event:
    """Checks an outbound delivery (its raw body and headers) and answers the event it carries.

    `secret` may be several secrets (yours during your own rotation). The comparison is in constant
    time and looks at every signature (no early exit); a timestamp more than `tolerance` seconds
    from now is refused, so a captured delivery cannot be replayed later.
    """
    body = payload.encode() if isinstance(payload, str) else payload
    timestamp = _header(headers, "x-combo-timestamp")
    try:
        sent_at = int(timestamp)
    except ValueError:
        raise WebhookVerificationError("missing or malformed X-Combo-Timestamp") from None
    if abs((time.time() if now is None else now) - sent_at) > tolerance:
        raise WebhookVerificationError("X-Combo-Timestamp is outside the tolerance")
    given = [part.strip() for part in _header(headers, "x-combo-signature").split(",") if part.strip()]
    secrets = [secret] if isinstance(secret, str) else secret
    matched = False
    for expected in (_signature(s, timestamp, body) for s in secrets):
        for candidate in given:
            matched |= hmac.compare_digest(candidate.encode(), expected.encode())
    if not matched:
        raise WebhookVerificationError("no signature matches")
    try:
        return models.Event.model_validate(json.loads(body))
    except (ValueError, pydantic.ValidationError) as err:
        raise WebhookVerificationError(f"the body is not an event: {err}") from err


def sign(
    payload: bytes | str | Mapping[str, Any], secret: str, *, timestamp: int | None = None, event_id: str | None = None
) -> tuple[bytes, dict[str, str]]:
    """The body and headers of a signed inbound call to the service (send the body as returned).

    Answers `(body, headers)` with X-Combo-Signature, X-Combo-Timestamp, X-Combo-Event-Id (a new
    id unless given: the service acknowledges an id it has seen with `duplicate: true`) and
    Content-Type.
    """
    body = (
        payload
        if isinstance(payload, bytes)
        else payload.encode()
        if isinstance(payload, str)
        else json.dumps(payload, separators=(",", ":")).encode()
    )
    ts = str(int(time.time()) if timestamp is None else timestamp)
    return body, {
        "Content-Type": "application/json",
        "X-Combo-Timestamp": ts,
        "X-Combo-Signature": _signature(secret, ts, body),
        "X-Combo-Event-Id": event_id or f"evt_{uuid.uuid4().hex}",
    }
