"""Small local servers the tests put between the client and the service."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable
from urllib.parse import urlsplit

import httpx


class CuttingProxy:
    """A TCP proxy that cuts the first `cuts` connections answering an event stream, once that
    stream has sent `after_events` events, as a network failure would."""

    def __init__(self, target: str, *, cuts: int = 1, after_events: int = 2, refuse_after_first: bool = False) -> None:
        parts = urlsplit(target)
        self._target = (parts.hostname or "127.0.0.1", parts.port or 80)
        self._cuts_left = cuts
        self._after = after_events
        # Every connection after the first is cut before it answers (a service that went away).
        self._refuse_after_first = refuse_after_first
        self.connections = 0
        self.cut = 0
        self.requests: list[str] = []
        """Each request's head (request line and headers), as sent."""
        self._server = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._server.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                downstream, _ = self._server.accept()
            except OSError:
                return
            self.connections += 1
            if self._refuse_after_first and self.connections > 1:
                downstream.close()
                continue
            upstream = socket.create_connection(self._target)
            threading.Thread(target=self._pipe, args=(downstream, upstream, False), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, downstream, True), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket, is_response: bool) -> None:
        seen = b""
        try:
            while chunk := source.recv(65536):
                if not is_response and not seen:
                    seen = chunk
                    self.requests.append(chunk.split(b"\r\n\r\n", 1)[0].decode("latin-1"))
                if is_response:
                    seen += chunk
                    if b"text/event-stream" in seen and seen.count(b"\nid: ") >= self._after and self._cuts_left > 0:
                        self._cuts_left -= 1
                        self.cut += 1
                        # Forward only up to the end of the events seen so far, then drop the line.
                        sink.sendall(chunk[: chunk.rfind(b"\n\n") + 2] if b"\n\n" in chunk else b"")
                        raise ConnectionResetError
                sink.sendall(chunk)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()

    def close(self) -> None:
        self._server.close()


class Scripted:
    """One scripted answer of a ScriptedFront."""

    def __init__(self, status: int, body: bytes | dict[str, object] = b"", headers: dict[str, str] | None = None) -> None:
        self.status = status
        self.body = json.dumps(body).encode() if isinstance(body, dict) else body
        self.headers = {"Content-Type": "application/json" if isinstance(body, dict) else "text/html", **(headers or {})}


RATE_LIMITED = {"code": 10006, "data": {}, "message": "rate limit exceeded"}


class ScriptedFront:
    """An HTTP server in front of the service: it answers the first requests with the `script`
    (one answer each, in order), then forwards every request to the service. It records what
    arrived (method, path, headers, body)."""

    def __init__(self, target: str, script: list[Scripted]) -> None:
        self.requests: list[tuple[str, str, dict[str, str], bytes]] = []
        front = self
        answers = list(script)

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_: object) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                front.requests.append((self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                if answers:
                    scripted = answers.pop(0)
                    self.send_response(scripted.status)
                    for k, v in scripted.headers.items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", str(len(scripted.body)))
                    self.end_headers()
                    self.wfile.write(scripted.body)
                    return
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
                answer = httpx.request(self.command, target + self.path, headers=headers, content=body)
                self.send_response(answer.status_code)
                for k, v in answer.headers.items():
                    if k.lower() not in ("content-length", "transfer-encoding", "content-encoding", "connection"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(answer.content)))
                self.end_headers()
                self.wfile.write(answer.content)

            do_GET = do_POST = do_PUT = do_DELETE = _handle

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


class Receiver:
    """An HTTP server that records every POST (raw body and headers) and answers `status`."""

    def __init__(self, status: Callable[[], int] = lambda: 200) -> None:
        self.received: list[tuple[bytes, dict[str, str]]] = []
        self.arrived = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_: object) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                with receiver.arrived:
                    receiver.received.append((body, dict(self.headers)))
                    receiver.arrived.notify_all()
                self.send_response(status())
                self.send_header("Content-Length", "0")
                self.end_headers()

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/hook"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def wait_for(self, count: int, timeout: float = 30.0) -> list[tuple[bytes, dict[str, str]]]:
        with self.arrived:
            if not self.arrived.wait_for(lambda: len(self.received) >= count, timeout):
                raise AssertionError(f"{len(self.received)} of {count} deliveries arrived in {timeout} s")
            return list(self.received)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
