"""The client and the TRL adapter through a real local hub's gateway (`hub://`, with a bearer token)."""

from __future__ import annotations

import pytest

from edgegym import EnvClient, ProblemError, answer, tool_call
from edgegym.trl import environment


def test_a_hub_ref_plays_an_episode_through_the_gateway(hub: tuple[str, str]) -> None:
    url, token = hub
    client = EnvClient("hub://edgegym/calculator-l1@latest", token=token, hub_url=url, timeout=30)
    assert client.base_url == f"{url}/v1/envs/edgegym/calculator-l1@latest"
    m = client.manifest()
    assert m.name == "calculator-l1"
    s = client.start("train", index=0)
    r = client.step(s, tool_call("calculator", {"expression": "33-20"}))
    assert r.messages[0]["content"] == "13"
    end = client.step(r, answer("#### 13"))
    assert end.done and end.success is True
    assert end.receipt_claims is not None and end.receipt_claims["episodeId"] == s.episode_id
    [a, b] = client.step_batch([(r, answer("#### 13")), (r, answer("#### 12"))])
    assert not isinstance(a, ProblemError) and not isinstance(b, ProblemError)
    assert (a.success, b.success) == (True, False)


def test_the_hub_token_comes_from_the_environment(hub: tuple[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    url, token = hub
    monkeypatch.setenv("EDGEGYM_HUB_URL", url)
    monkeypatch.setenv("EDGEGYM_TOKEN", token)
    env = environment("hub://edgegym/calculator-l1@latest", indices=[0, 1])
    assert env.client.target.headers == {"authorization": f"Bearer {token}"}
    e = env.environment_factory()
    e.reset(**env.dataset[0])
    assert e.calculator(expression="33-20") == "13"  # type: ignore[attr-defined]
    done = [{"role": "assistant", "content": "#### 13"}]
    assert env.reward_func([done], environments=[e]) == [1.0]


def test_a_wrong_token_is_refused_with_the_hubs_problem(hub: tuple[str, str]) -> None:
    url, _ = hub
    client = EnvClient("hub://edgegym/calculator-l1@latest", token="not-a-token", hub_url=url)
    with pytest.raises(ProblemError) as e:
        client.manifest()
    assert e.value.status == 401


def test_an_unknown_env_is_the_hubs_404(hub: tuple[str, str]) -> None:
    url, token = hub
    with pytest.raises(ProblemError) as e:
        EnvClient("hub://edgegym/no-such-env@1.0.0", token=token, hub_url=url).manifest()
    assert e.value.status == 404
