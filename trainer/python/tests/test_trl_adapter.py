"""`edgegym.trl` against the live env host, driven as TRL's tool loop drives it (no model)."""

from __future__ import annotations

from typing import Any

import pytest

from edgegym.trl import environment, grpo_config, outside_blocks

from .conftest import Recorder


def steps(rec: Recorder) -> list[dict[str, Any]]:
    return [s.request["action"] for s in rec.calls("/v1/step")]


def test_rows_carry_the_system_prompt_and_reset_fills_the_user_turn(recorder: Recorder) -> None:
    env = environment(f"{recorder.url}/calculator-l1", indices=range(3))
    rows = env.dataset
    assert rows.column_names == ["prompt", "split", "index"] and rows["index"] == [0, 1, 2]
    assert rows[0]["prompt"][0] == {"role": "system", "content": env.system_prompt}
    assert env.system_prompt.startswith("Solve the problem. Call the calculator")
    assert rows[0]["prompt"][1] == {"role": "user", "content": ""}
    e = env.environment_factory()
    task = e.reset(**rows[0])
    assert task == "Gus has 33 stamps and gives away 20. How many stamps now?"
    assert [s.request for s in recorder.calls("/v1/sessions")][-1] == {"split": "train", "index": 0}
    kw = env.trainer_kwargs()
    assert kw["environment_factory"] is env.environment_factory and kw["train_dataset"] is rows
    assert kw["reward_funcs"][0].__name__ == "edgegym_reward"


def test_a_tool_call_is_a_step_and_the_final_text_is_the_last(recorder: Recorder) -> None:
    env = environment(f"{recorder.url}/calculator-l1", indices=[0])
    e = env.environment_factory()
    e.reset(**env.dataset[0])
    assert e.calculator(expression="33-20") == "13"  # type: ignore[attr-defined]
    completion = [
        {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {"name": "calculator"}}]},
        {"role": "tool", "name": "calculator", "content": "13"},
        {"role": "assistant", "content": "#### 13"},
    ]
    logged: dict[str, float] = {}
    rewards = env.reward_func([completion], environments=[e], log_metric=lambda k, v: logged.__setitem__(k, v))
    assert rewards == [1.0]
    assert logged["edgegym/success"] == 1.0 and logged["edgegym/steps"] == 2.0
    assert steps(recorder) == [
        {"tool_calls": [{"type": "function", "function": {"name": "calculator", "arguments": {"expression": "33-20"}},
                         "id": "call_0"}]},
        {"content": "#### 13"},
    ]
    final = recorder.calls("/v1/step")[-1].response
    assert final["done"] is True and final["info"]["success"] is True and final["receipt"]


def test_a_malformed_call_is_sent_as_it_is_then_the_text_outside_it(recorder: Recorder) -> None:
    env = environment(f"{recorder.url}/calculator-l1", indices=[0])
    e = env.environment_factory()
    e.reset(**env.dataset[0])
    text = 'I think #### 13 <tool_call>{"name": "calculator", "arguments": {</tool_call>'
    assert outside_blocks(text) == "I think #### 13"
    [reward] = env.reward_func([[{"role": "assistant", "content": text}]], environments=[e])
    sent = recorder.calls("/v1/step")
    assert [s.request["action"] for s in sent] == [{"content": text}, {"content": "I think #### 13"}]
    assert sent[0].response["done"] is False and sent[0].response["info"]["invalid_calls"] == 1
    assert sent[1].response["done"] is True
    assert reward == sum(s.response["reward"] for s in sent)


def test_the_step_limit_ends_the_episode_and_later_calls_are_not_sent(recorder: Recorder) -> None:
    env = environment(f"{recorder.url}/calculator-l1", indices=[0])
    max_steps = env.manifest.limits["maxSteps"]
    e = env.environment_factory()
    e.reset(**env.dataset[0])
    results = [e.calculator(expression="1+1") for _ in range(max_steps)]  # type: ignore[attr-defined]
    assert "The episode is over" in results[-1] and "The episode is over" not in results[-2]
    refused = e.calculator(expression="1+1")  # type: ignore[attr-defined]
    assert refused.startswith("Error: the episode is over")
    assert len(recorder.calls("/v1/step")) == max_steps
    [outcome_reward] = env.reward_func([[{"role": "assistant", "content": "#### 2"}]], environments=[e])
    # Nothing more is sent: the env already ended the episode, truncated.
    assert len(recorder.calls("/v1/step")) == max_steps
    assert recorder.calls("/v1/step")[-1].response["truncated"] is True
    assert outcome_reward == sum(s.response["reward"] for s in recorder.calls("/v1/step"))
    assert env.grpo_config(output_dir="/tmp/unused", use_cpu=True).max_tool_calling_iterations == max_steps - 1


def test_a_dropped_tool_result_is_counted(recorder: Recorder) -> None:
    env = environment(f"{recorder.url}/calculator-l1", indices=[0])
    e = env.environment_factory()
    e.reset(**env.dataset[0])
    e.calculator(expression="33-20")  # type: ignore[attr-defined]
    logged: dict[str, float] = {}
    # TRL rolled the tool message back: the completion ends on the assistant's call.
    completion = [{"role": "assistant", "content": "", "tool_calls": [{"type": "function"}]}]
    env.reward_func([completion], environments=[e], log_metric=lambda k, v: logged.__setitem__(k, v))
    assert logged["edgegym/dropped_tool_results"] == 1.0
    assert recorder.calls("/v1/step")[-1].request["action"] == {"content": ""}


def test_replace_observations_become_the_tool_result(recorder: Recorder) -> None:
    env = environment(f"{recorder.url}/webshop-l1", indices=[0])
    assert [t["function"]["name"] for t in env.manifest.tools] == ["env_step"]
    e = env.environment_factory()
    e.reset(**env.dataset[0])
    page = e.env_step(command="search[coffee table]")  # type: ignore[attr-defined]
    obs = recorder.calls("/v1/step")[-1].response["observation"]
    assert obs["mode"] == "replace"
    assert page == obs["messages"][-1]["content"] and page.startswith("Instruction:")


def test_bf16_is_off_on_cpu_unless_asked() -> None:
    assert grpo_config(output_dir="/tmp/unused", use_cpu=True).bf16 is False


def test_an_unknown_split_is_refused_with_the_splits(envs: str) -> None:
    with pytest.raises(ValueError, match="has no split 'nope'; it has train, test"):
        environment(f"{envs}/calculator-l1", split="nope")
