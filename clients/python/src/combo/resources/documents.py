"""Documents: the generated operations plus `wait`, which follows a parse to its end."""

from __future__ import annotations

import time
from typing import Callable

import anyio

from .._exceptions import APITimeoutError
from .._generated import models
from .._generated.resources import AsyncDocuments as GeneratedAsyncDocuments
from .._generated.resources import Documents as GeneratedDocuments

ParseProgressCallback = Callable[[models.Document], None]
"""Called with the document after every poll while it parses (its `progress` says how far)."""

_FIRST_POLL = 0.25
_LONGEST_POLL = 5.0


def _parsed(document: models.Document) -> bool:
    return document.status in ("ready", "failed")


class Documents(GeneratedDocuments):
    def wait(self, doc_id: str, *, timeout: float = 300.0, on_progress: ParseProgressCallback | None = None) -> models.Document:
        """Polls the document, backing off from 0.25 s to 5 s, until it is `ready` or `failed`, and answers it.

        A failed parse is answered too (its `error` says why). Raises APITimeoutError after `timeout` seconds.
        """
        deadline = time.monotonic() + timeout
        delay = _FIRST_POLL
        while True:
            document = self.get(doc_id)
            if on_progress is not None:
                on_progress(document)
            if _parsed(document):
                return document
            if time.monotonic() + delay > deadline:
                raise APITimeoutError(f"document {doc_id} is still {document.status} after {timeout} s")
            time.sleep(delay)
            delay = min(delay * 2, _LONGEST_POLL)


class AsyncDocuments(GeneratedAsyncDocuments):
    async def wait(self, doc_id: str, *, timeout: float = 300.0, on_progress: ParseProgressCallback | None = None) -> models.Document:
        """Polls until `ready` or `failed`; see Documents.wait."""
        deadline = time.monotonic() + timeout
        delay = _FIRST_POLL
        while True:
            document = await self.get(doc_id)
            if on_progress is not None:
                on_progress(document)
            if _parsed(document):
                return document
            if time.monotonic() + delay > deadline:
                raise APITimeoutError(f"document {doc_id} is still {document.status} after {timeout} s")
            await anyio.sleep(delay)
            delay = min(delay * 2, _LONGEST_POLL)
