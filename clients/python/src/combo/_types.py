"""Small types shared by the client: the "not given" marker, per-call options, path segments."""

from __future__ import annotations

from typing import Any, TypedDict
from urllib.parse import quote


class NotGiven:
    """Marks an argument the caller left out (None may be a value the API accepts)."""

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN = NotGiven()


class RequestOptions(TypedDict, total=False):
    """Options of one call, beside the client's."""

    timeout: float | None
    """Seconds an attempt may wait on the network: to connect, and for each read or write (a stream:
    between two events); None: no limit."""
    max_retries: int
    extra_headers: dict[str, str]
    idempotency_key: str
    """Sent as Idempotency-Key on every attempt of a POST (default: a new UUID per call)."""
    raw_response: bool
    """Internal: answer an APIResponse (`with_raw_response`)."""


def path_segment(value: str) -> str:
    """An id as one URL path segment (nothing in it can reach another path)."""
    if not isinstance(value, str) or value == "":
        raise ValueError(f"expected a non-empty id, got {value!r}")
    return quote(value, safe="")


def strip_not_given(values: dict[str, Any]) -> dict[str, Any]:
    """The arguments the caller gave, models turned into their JSON form."""
    from pydantic import BaseModel

    out: dict[str, Any] = {}
    for key, value in values.items():
        if isinstance(value, NotGiven):
            continue
        out[key] = value.model_dump(mode="json", by_alias=True, exclude_unset=True) if isinstance(value, BaseModel) else value
    return out
