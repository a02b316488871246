"""The base of the resource classes: each holds the client and sends through it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._base_client import AsyncAPIClient, SyncAPIClient


class SyncAPIResource:
    def __init__(self, client: SyncAPIClient) -> None:
        self._client = client

    def _request(self, *args: Any, **kwargs: Any) -> Any:
        return self._client._request(*args, **kwargs)


class AsyncAPIResource:
    def __init__(self, client: AsyncAPIClient) -> None:
        self._client = client

    async def _request(self, *args: Any, **kwargs: Any) -> Any:
        return await self._client._request(*args, **kwargs)
