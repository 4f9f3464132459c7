"""Fixtures: the servers `npm run test:python` started, and a recording proxy in front of the env host.

The tests talk to real servers only; the proxy forwards every call unchanged and keeps what it saw,
so a test can assert what the env was sent and answered.
"""

from __future__ import annotations

import json
import os
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator

import pytest


def _required(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.fail(f"{name} is not set: run these tests with `npm run test:python`, which starts the servers")
    return value


@pytest.fixture(scope="session")
def envs() -> str:
    """The Node env host's `/envs` URL."""
    return _required("EDGEGYM_TEST_ENVS").rstrip("/")


@pytest.fixture(scope="session")
def hub() -> tuple[str, str]:
    """The local hub's URL and an admin token of its team `edgegym`."""
    return _required("EDGEGYM_TEST_HUB_URL").rstrip("/"), _required("EDGEGYM_TEST_HUB_TOKEN")


@pytest.fixture(scope="session")
def qwen3_tokenizer_dir() -> str:
    return _required("EDGEGYM_TEST_QWEN3_TOKENIZER")


@dataclass
class Seen:
    """One call the env was sent, with its answer."""

    method: str
    path: str
    request: Any
    status: int
    response: Any


@dataclass
class Recorder:
    """A proxy to the env host; `seen` lists every call in order."""

    url: str
    seen: list[Seen] = field(default_factory=list)

    def calls(self, suffix: str) -> list[Seen]:
        return [s for s in self.seen if s.path.endswith(suffix)]


@pytest.fixture()
def recorder(envs: str) -> Iterator[Recorder]:
    seen: list[Seen] = []
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def _forward(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else None
            # The proxy listens at /envs like the host, so the same paths go upstream.
            req = urllib.request.Request(f"{envs}{self.path[len('/envs'):]}", data=body, method=self.command)
            req.add_header("content-type", "application/json")
            try:
                with urllib.request.urlopen(req, timeout=60) as resp:
                    status, data = resp.status, resp.read()
            except urllib.error.HTTPError as e:
                status, data = e.code, e.read()
            with lock:
                seen.append(Seen(self.command, self.path, _json(body), status, _json(data)))
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = _forward
        do_POST = _forward

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Recorder(f"http://127.0.0.1:{server.server_address[1]}/envs", seen)
    finally:
        server.shutdown()
        server.server_close()


def _json(data: bytes | None) -> Any:
    if not data:
        return None
    try:
        return json.loads(data)
    except ValueError:
        return data.decode("utf-8", "replace")
