"""The edgegym/v1 client: manifest, sessions, steps, forks, batches and the expert.

Sessions are sealed tokens that carry the whole episode, so a `Session` or `StepResult` is a value:
stepping the same one twice forks the episode (a GRPO group, a tree search), and nothing is kept on
the server or here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Union

from .errors import ProblemError, ProtocolError, ReceiptError
from .http import JsonHttp
from .receipts import have_verifier, verify_receipt
from .refs import Target, resolve

PROTOCOL = "edgegym/v1"

#: What `step` takes: Hermes text (`<tool_call>` blocks, or a final answer) or an action object.
Action = Union[str, Mapping[str, Any]]


@dataclass(frozen=True)
class Manifest:
    """`GET B/v1/manifest`: the env's tools (JSON Schema), splits, limits, reward range and public key."""

    raw: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.raw["name"])

    @property
    def version(self) -> str:
        return str(self.raw["version"])

    @property
    def tools(self) -> list[dict[str, Any]]:
        return list(self.raw["tools"])

    @property
    def splits(self) -> dict[str, int]:
        return dict(self.raw["splits"])

    @property
    def limits(self) -> dict[str, int]:
        return dict(self.raw["limits"])

    @property
    def public_key(self) -> dict[str, Any]:
        return dict(self.raw["publicKey"])


@dataclass(frozen=True)
class Session:
    """A new episode: its sealed token, id, task and first messages (system prompt, then the task)."""

    token: str
    episode_id: str
    split: str
    index: int
    messages: list[dict[str, Any]]


@dataclass(frozen=True)
class StepResult:
    """One step's answer. `token` continues the episode; `receipt_claims` is set once a receipt verified."""

    token: str
    messages: list[dict[str, Any]]
    mode: str
    reward: float
    done: bool
    truncated: bool
    info: dict[str, Any]
    receipt: str | None = None
    receipt_claims: dict[str, Any] | None = field(default=None, compare=False)

    @property
    def success(self) -> bool | None:
        """The env's verdict on the step that ends the episode (None before the end)."""
        value = self.info.get("success")
        return value if isinstance(value, bool) else None


def tool_call(name: str, arguments: Mapping[str, Any], call_id: str | None = None) -> dict[str, Any]:
    """An action of one OpenAI-style tool call."""
    call: dict[str, Any] = {"type": "function", "function": {"name": name, "arguments": dict(arguments)}}
    if call_id is not None:
        call["id"] = call_id
    return {"tool_calls": [call]}


def answer(text: str) -> dict[str, Any]:
    """A final answer: text with no tool call."""
    return {"content": text}


class EnvClient:
    """A client of one env, at a URL or behind a hub's gateway.

    Args:
        env: `http(s)://.../envs/<name>` or `hub://owner/name@version`.
        token: the hub's bearer token (else `EDGEGYM_TOKEN` or `edgegym login`'s file, for `hub://`).
        hub_url: the hub of `hub://` refs (else `EDGEGYM_HUB_URL`, the file, `http://localhost:8787`).
        timeout: the deadline of each call in seconds, the whole body included.
        verify_receipts: check every receipt against the manifest's key (needs `cryptography`).

    Raises:
        RefError: `env` is not a URL or hub ref.
        ReceiptError: `verify_receipts` is set and `cryptography` is not installed.
    """

    def __init__(
        self,
        env: str,
        *,
        token: str | None = None,
        hub_url: str | None = None,
        timeout: float = 30.0,
        verify_receipts: bool = True,
    ) -> None:
        if verify_receipts and not have_verifier():
            raise ReceiptError(
                "verifying receipts needs the cryptography package: pip install 'edgegym[receipts]' "
                "(or pass verify_receipts=False)"
            )
        self.target: Target = resolve(env, token=token, hub_url=hub_url)
        self.http = JsonHttp(self.target.base_url, headers=self.target.headers, timeout=timeout)
        self.verify_receipts = verify_receipts
        self._manifest: Manifest | None = None

    @property
    def base_url(self) -> str:
        return self.target.base_url

    def manifest(self) -> Manifest:
        """The env's manifest (fetched once)."""
        if self._manifest is None:
            raw = self.http.call("GET", "/v1/manifest")
            _expect(raw, {"protocol": str, "name": str, "version": str, "tools": list, "splits": dict}, "manifest")
            if raw["protocol"] != PROTOCOL:
                raise ProtocolError(f"{self.base_url} speaks {raw['protocol']!r}, not {PROTOCOL}")
            self._manifest = Manifest(raw)
        return self._manifest

    def start(self, split: str = "train", index: int | None = None, seed: int | None = None) -> Session:
        """`POST B/v1/sessions`: a new episode of task `index` (else the one `seed` picks, else a random one)."""
        body: dict[str, Any] = {"split": split}
        if index is not None:
            body["index"] = index
        if seed is not None:
            body["seed"] = seed
        raw = self.http.call("POST", "/v1/sessions", body)
        _expect(raw, {"session": str, "episodeId": str, "task": dict, "observation": dict}, "session")
        return Session(
            token=raw["session"],
            episode_id=raw["episodeId"],
            split=str(raw["task"].get("split")),
            index=int(raw["task"].get("index", -1)),
            messages=list(raw["observation"].get("messages", [])),
        )

    def step(self, session: str | Session | StepResult, action: Action) -> StepResult:
        """`POST B/v1/step`: one agent step. The same `session` stepped twice forks the episode."""
        raw = self.http.call("POST", "/v1/step", {"session": _token(session), "action": _action(action)})
        return self._result(raw)

    def step_batch(
        self, steps: Iterable[tuple[str | Session | StepResult, Action]]
    ) -> list[StepResult | ProblemError]:
        """`POST B/v1/step:batch` (1 to 256 steps): each item's result, or its own problem, in order."""
        items = [{"session": _token(s), "action": _action(a)} for s, a in steps]
        raw = self.http.call("POST", "/v1/step:batch", {"steps": items})
        _expect(raw, {"results": list}, "batch response")
        if len(raw["results"]) != len(items):
            raise ProtocolError(f"batch of {len(items)} steps answered with {len(raw['results'])} results")
        url = f"{self.base_url}/v1/step:batch"
        return [
            ProblemError(url, int(r["error"].get("status", 0)), r["error"])
            if isinstance(r, dict) and isinstance(r.get("error"), dict)
            else self._result(r)
            for r in raw["results"]
        ]

    def expert(self, session: str | Session | StepResult) -> dict[str, Any]:
        """`POST B/v1/expert`: the scripted expert's next action (refused on held-out splits)."""
        raw = self.http.call("POST", "/v1/expert", {"session": _token(session)})
        _expect(raw, {"action": dict}, "expert response")
        return raw["action"]

    def verify(self, receipt: str) -> dict[str, Any]:
        """A receipt's claims once its signature checks out against this env's manifest."""
        manifest = self.manifest()
        return verify_receipt(receipt, manifest.public_key, manifest=manifest.raw)

    def close(self) -> None:
        self.http.close()

    def _result(self, raw: Any) -> StepResult:
        _expect(
            raw,
            {"session": str, "observation": dict, "reward": (int, float), "done": bool, "truncated": bool, "info": dict},
            "step result",
        )
        receipt = raw.get("receipt")
        claims = self.verify(receipt) if isinstance(receipt, str) and self.verify_receipts else None
        obs = raw["observation"]
        return StepResult(
            token=raw["session"],
            messages=list(obs.get("messages", [])),
            mode=str(obs.get("mode", "append")),
            reward=float(raw["reward"]),
            done=raw["done"],
            truncated=raw["truncated"],
            info=raw["info"],
            receipt=receipt if isinstance(receipt, str) else None,
            receipt_claims=claims,
        )


def _token(session: str | Session | StepResult) -> str:
    return session if isinstance(session, str) else session.token


def _action(action: Action) -> dict[str, Any]:
    return {"content": action} if isinstance(action, str) else dict(action)


def _expect(raw: Any, fields: dict[str, Any], what: str) -> None:
    if not isinstance(raw, dict):
        raise ProtocolError(f"expected a {what} object, got {type(raw).__name__}")
    for name, kind in fields.items():
        if not isinstance(raw.get(name), kind):
            raise ProtocolError(f"{what} lacks {name!r} of the right type: {str(raw)[:200]}")
