"""Env references: an http(s) base URL, or `hub://owner/name@version` served by a hub's gateway.

The same rules as the TypeScript trainer's `--env` (shared/env-ref.ts, trainer/client/resolve-env.ts):
the hub is `hub_url`, else `EDGEGYM_HUB_URL`, else the file `edgegym login` writes, else
`http://localhost:8787`; the token likewise from `token`, `EDGEGYM_TOKEN` or that file.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from .errors import RefError

HUB_SCHEME = "hub://"
DEFAULT_HUB_URL = "http://localhost:8787"
_SLUG = "[a-z0-9-]{1,64}"
_VERSION = "[0-9A-Za-z.+-]{1,128}"
_ENV_REF = re.compile(f"^({_SLUG})/({_SLUG})@({_VERSION})$")


@dataclass(frozen=True)
class EnvRef:
    """`owner/name@version` (the version may be `latest`, which the hub resolves)."""

    owner: str
    name: str
    version: str

    def __str__(self) -> str:
        return f"{self.owner}/{self.name}@{self.version}"


@dataclass(frozen=True)
class Target:
    """Where an env is reached: its base URL and the headers every call carries."""

    base_url: str
    headers: dict[str, str]
    hub_ref: EnvRef | None = None


def parse_hub_ref(spec: str) -> EnvRef | None:
    """The reference inside `hub://owner/name@version`, or None for anything else."""
    if not spec.startswith(HUB_SCHEME):
        return None
    m = _ENV_REF.match(spec[len(HUB_SCHEME) :])
    return EnvRef(m[1], m[2], m[3]) if m else None


def credentials_path(environ: Mapping[str, str] | None = None) -> Path:
    """Where `edgegym login` keeps the hub URL and token."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "edgegym" / "credentials.json"


def _read_credentials(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if k in ("url", "token") and isinstance(v, str)} if isinstance(data, dict) else {}


def resolve(
    spec: str, *, token: str | None = None, hub_url: str | None = None, environ: Mapping[str, str] | None = None
) -> Target:
    """Turns an env reference into its base URL and headers.

    Args:
        spec: `http(s)://.../envs/<name>` or `hub://owner/name@version`.
        token: the hub's bearer token (a private env needs one; a public one does not).
        hub_url: the hub of `hub://` refs.
        environ: read instead of `os.environ` (tests).

    Raises:
        RefError: `spec` is neither form.
    """
    env = os.environ if environ is None else environ
    if re.match(r"^https?://", spec):
        headers = {"authorization": f"Bearer {token}"} if token else {}
        return Target(spec.rstrip("/"), headers)
    ref = parse_hub_ref(spec)
    if ref is None:
        raise RefError(f"an env must be an http(s):// URL or hub://owner/name@version, got {spec!r}")
    file = _read_credentials(credentials_path(env))
    url = (hub_url or env.get("EDGEGYM_HUB_URL") or file.get("url") or DEFAULT_HUB_URL).rstrip("/")
    bearer = token or env.get("EDGEGYM_TOKEN") or file.get("token")
    headers = {"authorization": f"Bearer {bearer}"} if bearer else {}
    return Target(f"{url}/v1/envs/{ref}", headers, ref)
