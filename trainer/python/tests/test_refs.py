"""Env references resolve as the TypeScript trainer resolves `--env`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edgegym import RefError, parse_hub_ref, resolve


def test_hub_refs_parse_like_env_ref_ts() -> None:
    ref = parse_hub_ref("hub://edgegym/calculator-l1@1.0.0")
    assert ref is not None and (ref.owner, ref.name, ref.version) == ("edgegym", "calculator-l1", "1.0.0")
    assert parse_hub_ref("hub://edgegym/calculator-l1") is None
    assert parse_hub_ref("hub://Edgegym/calc@1") is None
    assert parse_hub_ref("edgegym/calc@1") is None


def test_the_hub_and_token_come_from_args_then_environment_then_file(tmp_path: Path) -> None:
    creds = tmp_path / "edgegym" / "credentials.json"
    creds.parent.mkdir()
    creds.write_text(json.dumps({"url": "http://file-hub:1", "token": "file-token"}))
    env = {"XDG_CONFIG_HOME": str(tmp_path)}
    t = resolve("hub://a/b@latest", environ=env)
    assert t.base_url == "http://file-hub:1/v1/envs/a/b@latest"
    assert t.headers == {"authorization": "Bearer file-token"}
    t = resolve("hub://a/b@latest", environ={**env, "EDGEGYM_HUB_URL": "http://env-hub:2/", "EDGEGYM_TOKEN": "e"})
    assert (t.base_url, t.headers["authorization"]) == ("http://env-hub:2/v1/envs/a/b@latest", "Bearer e")
    t = resolve("hub://a/b@1.0.0", token="arg", hub_url="http://arg-hub:3", environ=env)
    assert (t.base_url, t.headers["authorization"]) == ("http://arg-hub:3/v1/envs/a/b@1.0.0", "Bearer arg")
    t = resolve("hub://a/b@1.0.0", environ={"XDG_CONFIG_HOME": str(tmp_path / "none")})
    assert (t.base_url, t.headers) == ("http://localhost:8787/v1/envs/a/b@1.0.0", {})


def test_urls_pass_through_and_anything_else_is_refused() -> None:
    assert resolve("http://127.0.0.1:8788/envs/calculator/", environ={}).base_url == "http://127.0.0.1:8788/envs/calculator"
    with pytest.raises(RefError, match="hub://owner/name@version"):
        resolve("local:calculator", environ={})
