"""Pages of a list: the items of one page, and iteration over every item of every page."""

from __future__ import annotations

from typing import Any, AsyncIterator, Awaitable, Callable, Generator, Generic, Iterator, TypeVar

T = TypeVar("T")


class _Page(Generic[T]):
    def __init__(self, page: Any) -> None:
        self.items: list[T] = list(page.items)
        self.total: int = page.total
        self.page: int = page.page
        self.page_size: int = page.page_size

    def has_next_page(self) -> bool:
        return self.page * self.page_size < self.total and len(self.items) > 0

    def __repr__(self) -> str:
        return f"{type(self).__name__}(page={self.page}, page_size={self.page_size}, total={self.total}, items={len(self.items)})"


class SyncPage(_Page[T]):
    """One page (`items`, `total`, `page`, `page_size`); iterating it walks every page from this one on."""

    def __init__(self, page: Any, fetch: Callable[[int], SyncPage[T]]) -> None:
        super().__init__(page)
        self._fetch = fetch

    def next_page(self) -> SyncPage[T]:
        if not self.has_next_page():
            raise IndexError("no next page")
        return self._fetch(self.page + 1)

    def iter_pages(self) -> Iterator[SyncPage[T]]:
        page = self
        while True:
            yield page
            if not page.has_next_page():
                return
            page = page.next_page()

    def __iter__(self) -> Iterator[T]:
        for page in self.iter_pages():
            yield from page.items


class AsyncPage(_Page[T]):
    """One page; `async for` walks every item of every page from this one on."""

    def __init__(self, page: Any, fetch: Callable[[int], Awaitable[AsyncPage[T]]]) -> None:
        super().__init__(page)
        self._fetch = fetch

    async def next_page(self) -> AsyncPage[T]:
        if not self.has_next_page():
            raise IndexError("no next page")
        return await self._fetch(self.page + 1)

    async def iter_pages(self) -> AsyncIterator[AsyncPage[T]]:
        page = self
        while True:
            yield page
            if not page.has_next_page():
                return
            page = await page.next_page()

    async def __aiter__(self) -> AsyncIterator[T]:
        async for page in self.iter_pages():
            for item in page.items:
                yield item


class AsyncPaginator(Generic[T]):
    """What an async list method answers: `await` it for the first page, or `async for` over every item."""

    def __init__(self, first_page: Callable[[], Awaitable[AsyncPage[T]]]) -> None:
        self._first_page = first_page

    def __await__(self) -> Generator[Any, None, AsyncPage[T]]:
        return self._first_page().__await__()

    async def __aiter__(self) -> AsyncIterator[T]:
        page = await self._first_page()
        async for item in page:
            yield item
