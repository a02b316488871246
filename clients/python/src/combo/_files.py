"""Uploads: a path, bytes or an open binary file, read in pieces with a progress callback."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import IO, Callable, Union

FileInput = Union[str, "os.PathLike[str]", bytes, IO[bytes], tuple[str, Union[bytes, IO[bytes]]]]
"""A path, bytes, an open binary file, or (file name, bytes or file)."""

ProgressCallback = Callable[[int, int], None]
"""Called with (bytes sent, total bytes) as the upload goes."""


class ProgressReader:
    """A file object that reports how much of it was read (httpx reads multipart files in pieces)."""

    def __init__(self, source: IO[bytes], total: int, on_progress: ProgressCallback | None) -> None:
        self._source = source
        self._start = source.tell() if source.seekable() else 0
        self.total = total
        self._sent = 0
        self._on_progress = on_progress

    def read(self, size: int = -1) -> bytes:
        chunk = self._source.read(size)
        if chunk:
            self._sent += len(chunk)
            if self._on_progress is not None:
                self._on_progress(min(self._sent, self.total), self.total)
        return chunk

    def seek(self, offset: int, whence: int = 0) -> int:
        # A retried attempt sends the file again from its start. Positions are the upload's own:
        # httpx takes the length from seek(0, SEEK_END).
        if whence == os.SEEK_SET:
            self._sent = 0
            offset += self._start
        return self._source.seek(offset, whence) - self._start

    def restart(self) -> None:
        """An attempt starts: the file from its start, its progress from 0."""
        self.seek(0)
        if self._on_progress is not None:
            self._on_progress(0, self.total)

    def tell(self) -> int:
        return self._source.tell() - self._start


def open_upload(file: FileInput, on_progress: ProgressCallback | None) -> tuple[str, ProgressReader, list[IO[bytes]]]:
    """(file name, reader, files to close after the call) for a file argument."""
    to_close: list[IO[bytes]] = []
    name: str
    if isinstance(file, tuple):
        name, content = file
        source: IO[bytes] = io.BytesIO(content) if isinstance(content, bytes) else content
    elif isinstance(file, (str, os.PathLike)):
        path = Path(file)
        name = path.name
        source = path.open("rb")
        to_close.append(source)
    elif isinstance(file, (bytes, bytearray)):
        name, source = "file", io.BytesIO(bytes(file))
    else:
        name = os.path.basename(str(getattr(file, "name", "file")))
        source = file
    if not source.seekable():
        source = io.BytesIO(source.read())
    start = source.tell()
    total = source.seek(0, os.SEEK_END) - start
    source.seek(start)
    return name, ProgressReader(source, total, on_progress), to_close
