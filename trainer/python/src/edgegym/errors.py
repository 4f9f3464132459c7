"""The exceptions the client raises: every failure is one of these, with what went wrong in its message."""

from __future__ import annotations

from typing import Any


class EdgegymError(Exception):
    """Base class of every error this package raises."""


class ProblemError(EdgegymError):
    """The server answered with an RFC 9457 problem (`application/problem+json`).

    Branch on `code`, which is stable (`invalid_session`, `episode_done`, `rate_limited`, ...).
    """

    def __init__(self, url: str, status: int, problem: dict[str, Any]) -> None:
        self.url = url
        self.status = status
        self.problem = problem
        self.code: str = str(problem.get("code", "unknown"))
        self.title: str = str(problem.get("title", ""))
        self.detail: str | None = problem.get("detail") if isinstance(problem.get("detail"), str) else None
        self.issues: list[dict[str, Any]] = list(problem.get("issues") or [])
        retry = problem.get("retryAfter")
        self.retry_after: float | None = float(retry) if isinstance(retry, (int, float)) else None
        text = self.detail or self.title or "no detail"
        issues = "; ".join(f"{i.get('path', '')}: {i.get('message', '')}" for i in self.issues)
        super().__init__(f"{self.code} (HTTP {status}) from {url}: {text}" + (f" [{issues}]" if issues else ""))


class DeadlineError(EdgegymError, TimeoutError):
    """A call did not finish (connect, send, headers and body) within its deadline."""


class ConnectionFailed(EdgegymError, ConnectionError):
    """The server could not be reached, or the connection broke."""


class ProtocolError(EdgegymError):
    """The server's answer is not what edgegym/v1 says (not JSON, a field missing or of the wrong type)."""


class ReceiptError(EdgegymError):
    """A receipt does not verify against the manifest's public key, or cannot be checked here."""


class RefError(EdgegymError, ValueError):
    """An env reference is neither an http(s) URL nor `hub://owner/name@version`."""


class UnsupportedToolError(EdgegymError, ValueError):
    """A manifest tool cannot be expressed as a Python method (its name or a parameter's is no identifier)."""
