"""JSON over HTTP with one deadline for the whole call (connect, request, headers and body).

`http.client` rather than `urllib.request`: the socket is reachable, so each read is given what is
left of the deadline, and a server that drips its body cannot hold a call past it.
"""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import threading
import time
from typing import Any
from urllib.parse import urlsplit

from .errors import ConnectionFailed, DeadlineError, ProblemError, ProtocolError

#: Bodies above this are refused before they are read whole (edgegym's own limit on requests is 1 MiB).
MAX_RESPONSE_BYTES = 64 * 1024 * 1024
_CHUNK = 64 * 1024
_USER_AGENT = "edgegym-python/0.1"


class JsonHttp:
    """Keep-alive connections per thread to one base URL; `call` sends JSON and returns the parsed JSON.

    Args:
        base_url: the env's base URL (`http://127.0.0.1:8788/envs/calculator`) or a hub gateway URL.
        headers: sent with every request (the hub's `authorization: Bearer ...`).
        timeout: the deadline of each call in seconds, body included.
        retries: how many times a 429 `rate_limited` is tried again (after its `retryAfter`, within the deadline).
    """

    def __init__(
        self, base_url: str, *, headers: dict[str, str] | None = None, timeout: float = 30.0, retries: int = 2
    ) -> None:
        parts = urlsplit(base_url.rstrip("/"))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"base URL must be http(s)://host/..., got {base_url!r}")
        if timeout <= 0:
            raise ValueError(f"timeout must be positive, got {timeout}")
        self.base_url = base_url.rstrip("/")
        self._scheme = parts.scheme
        self._host = parts.hostname
        self._port = parts.port
        self._path = parts.path
        self._headers = {"user-agent": _USER_AGENT, "accept": "application/json", **(headers or {})}
        self.timeout = timeout
        self.retries = retries
        self._local = threading.local()

    def call(self, method: str, path: str, body: Any = None, *, timeout: float | None = None) -> Any:
        """One request; the parsed JSON of a 2xx answer, else `ProblemError` (or another `EdgegymError`)."""
        deadline = time.monotonic() + (timeout if timeout is not None else self.timeout)
        payload = None if body is None else json.dumps(body, separators=(",", ":")).encode()
        url = f"{self.base_url}{path}"
        for attempt in range(self.retries + 1):
            status, headers, data = self._send(method, path, payload, deadline, url)
            parsed = _parse_json(data, url, status)
            if 200 <= status < 300:
                return parsed
            problem = parsed if isinstance(parsed, dict) else {"title": str(parsed)[:200]}
            error = ProblemError(url, status, problem)
            wait = error.retry_after if error.retry_after is not None else _retry_after(headers)
            if error.code != "rate_limited" or attempt == self.retries:
                raise error
            wait = max(wait or 0.5, 0.05)
            if time.monotonic() + wait >= deadline:
                raise error
            time.sleep(wait)
        raise AssertionError("unreachable")

    def _send(
        self, method: str, path: str, payload: bytes | None, deadline: float, url: str
    ) -> tuple[int, http.client.HTTPMessage, bytes]:
        headers = dict(self._headers)
        if payload is not None:
            headers["content-type"] = "application/json"
        # A kept-alive connection the server closed in between fails on first use: once more on a fresh
        # one. edgegym's calls are safe to repeat (a step on the same token gives the same result).
        for fresh in (False, True):
            conn = self._connection(deadline, url, fresh)
            try:
                conn.request(method, f"{self._path}{path}", body=payload, headers=headers)
                _set_timeout(conn, deadline, url)
                resp = conn.getresponse()
                data = _read_body(resp, conn, deadline, url)
                if resp.getheader("connection", "").lower() == "close":
                    self._drop()
                return resp.status, resp.headers, data
            except DeadlineError:
                self._drop()
                raise
            except TimeoutError as e:
                self._drop()
                raise DeadlineError(f"{method} {url}: no answer within the deadline") from e
            except (http.client.HTTPException, OSError) as e:
                self._drop()
                if fresh or not getattr(conn, "_edgegym_reused", False):
                    raise ConnectionFailed(f"{method} {url}: {type(e).__name__}: {e}") from e
        raise AssertionError("unreachable")

    def _connection(self, deadline: float, url: str, fresh: bool) -> http.client.HTTPConnection:
        conn = None if fresh else getattr(self._local, "conn", None)
        if conn is not None:
            conn._edgegym_reused = True  # type: ignore[attr-defined]
            return conn
        remaining = _remaining(deadline, url)
        if self._scheme == "https":
            conn = http.client.HTTPSConnection(
                self._host, self._port, timeout=remaining, context=ssl.create_default_context()
            )
        else:
            conn = http.client.HTTPConnection(self._host, self._port, timeout=remaining)
        try:
            conn.connect()
        except TimeoutError as e:
            raise DeadlineError(f"{url}: could not connect within the deadline") from e
        except OSError as e:
            raise ConnectionFailed(f"{url}: cannot connect: {e}") from e
        conn._edgegym_reused = False  # type: ignore[attr-defined]
        self._local.conn = conn
        return conn

    def _drop(self) -> None:
        conn = getattr(self._local, "conn", None)
        self._local.conn = None
        if conn is not None:
            conn.close()

    def close(self) -> None:
        """Closes this thread's connection (others close when their threads end)."""
        self._drop()


def _remaining(deadline: float, url: str) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise DeadlineError(f"{url}: the deadline passed")
    return left


def _set_timeout(conn: http.client.HTTPConnection, deadline: float, url: str) -> None:
    sock: socket.socket | None = conn.sock
    if sock is not None:
        sock.settimeout(_remaining(deadline, url))


def _read_body(
    resp: http.client.HTTPResponse, conn: http.client.HTTPConnection, deadline: float, url: str
) -> bytes:
    declared = resp.getheader("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_RESPONSE_BYTES:
        raise ProtocolError(f"{url}: answer of {declared} bytes is over {MAX_RESPONSE_BYTES}")
    chunks: list[bytes] = []
    size = 0
    while True:
        _set_timeout(conn, deadline, url)
        chunk = resp.read1(_CHUNK) if hasattr(resp, "read1") else resp.read(_CHUNK)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_RESPONSE_BYTES:
            raise ProtocolError(f"{url}: answer over {MAX_RESPONSE_BYTES} bytes")
        chunks.append(chunk)


def _parse_json(data: bytes, url: str, status: int) -> Any:
    try:
        return json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        snippet = data[:120].decode("utf-8", "replace")
        raise ProtocolError(f"{url}: HTTP {status} answer is not JSON ({e}): {snippet!r}") from e


def _retry_after(headers: http.client.HTTPMessage) -> float | None:
    value = headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None
