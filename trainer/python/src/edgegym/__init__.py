"""edgegym: a client for edgegym/v1 environments, and (`edgegym.trl`) their adapter for TRL."""

from .client import Action, EnvClient, Manifest, Session, StepResult, answer, tool_call
from .errors import (
    ConnectionFailed,
    DeadlineError,
    EdgegymError,
    ProblemError,
    ProtocolError,
    ReceiptError,
    RefError,
    UnsupportedToolError,
)
from .receipts import verify_receipt
from .refs import EnvRef, parse_hub_ref, resolve

__all__ = [
    "Action",
    "ConnectionFailed",
    "DeadlineError",
    "EdgegymError",
    "EnvClient",
    "EnvRef",
    "Manifest",
    "ProblemError",
    "ProtocolError",
    "ReceiptError",
    "RefError",
    "Session",
    "StepResult",
    "UnsupportedToolError",
    "answer",
    "parse_hub_ref",
    "resolve",
    "tool_call",
    "verify_receipt",
]
