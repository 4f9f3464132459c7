"""`environment(...)`: an edgegym env as what TRL's `GRPOTrainer` takes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ..client import EnvClient, Manifest
from .episode import Episode, Outcome
from .tools import tool_method


class EdgegymEnvironment:
    """Base of the generated `environment_factory` classes: one instance per rollout, reset per episode.

    TRL offers every public method as a tool; the subclass adds one per manifest tool. The episode is
    ended by the reward function (`edgegym_reward`), not by `get_reward`, which TRL calls without the
    model's final text.
    """

    _client: EnvClient
    _split: str
    _system_prompt: str

    def __init__(self) -> None:
        self._episode: Episode | None = None
        self.system_prompt_differs = False

    def reset(self, index: int | None = None, split: str | None = None, seed: int | None = None, **row: Any) -> str:
        """Starts the row's task; returns its messages after the system prompt (TRL appends them to the user turn)."""
        session = self._client.start(split or self._split, index=index, seed=seed)
        self._episode = Episode(self._client, session)
        system = [str(m.get("content") or "") for m in session.messages if m.get("role") == "system"]
        rest = [str(m.get("content") or "") for m in session.messages if m.get("role") != "system"]
        # The dataset row carries one system prompt for the env; a task with its own gets it in the user turn.
        self.system_prompt_differs = bool(system) and system[0] != self._system_prompt
        return "\n\n".join(([system[0]] if self.system_prompt_differs else []) + rest)

    def _call(self, name: str, arguments: dict[str, Any]) -> str:
        if self._episode is None:
            raise RuntimeError("a tool was called before reset()")
        return self._episode.call_tool(name, arguments)

    def _finish(self, completion: list[dict[str, Any]]) -> Outcome:
        if self._episode is None:
            raise RuntimeError("the reward was asked for before reset()")
        return self._episode.finish(completion)


def environment_class(client: EnvClient, split: str, system_prompt: str) -> type[EdgegymEnvironment]:
    """The `environment_factory` class of one env: `EdgegymEnvironment` plus a method per manifest tool."""
    manifest = client.manifest()
    methods = {t["function"]["name"]: tool_method(t, EdgegymEnvironment._call) for t in manifest.tools}
    attrs: dict[str, Any] = {"_client": client, "_split": split, "_system_prompt": system_prompt, **methods}
    attrs["__doc__"] = f"The edgegym env {manifest.name}@{manifest.version} for TRL."
    return type(_class_name(manifest.name), (EdgegymEnvironment,), attrs)


def _class_name(name: str) -> str:
    return "".join(part.capitalize() for part in name.replace("_", "-").split("-") if part) + "Env"


def reward_function(on_outcomes: Callable[[list[Outcome]], None] | None = None) -> Callable[..., list[float]]:
    """TRL's reward function: ends each rollout's episode and returns its return (the sum of its step rewards)."""

    def edgegym_reward(
        completions: list[Any], environments: list[EdgegymEnvironment] | None = None, **kwargs: Any
    ) -> list[float]:
        if environments is None:
            raise RuntimeError("edgegym_reward needs the environments of GRPOTrainer(environment_factory=...)")
        outcomes = [env._finish(c if isinstance(c, list) else [{"role": "assistant", "content": str(c)}])
                    for env, c in zip(environments, completions, strict=True)]
        log_metric = kwargs.get("log_metric")
        if callable(log_metric) and outcomes:
            n = len(outcomes)
            log_metric("edgegym/success", sum(o.success for o in outcomes) / n)
            log_metric("edgegym/steps", sum(o.steps for o in outcomes) / n)
            log_metric("edgegym/truncated", sum(o.truncated for o in outcomes) / n)
            log_metric("edgegym/dropped_tool_results", sum(o.dropped_tool_results for o in outcomes) / n)
            log_metric("edgegym/malformed_tool_calls", sum(o.malformed_tool_calls for o in outcomes) / n)
        log_extra = kwargs.get("log_extra")
        if callable(log_extra):
            log_extra("edgegym_success", [o.success for o in outcomes])
        if on_outcomes is not None:
            on_outcomes(outcomes)
        return [o.reward for o in outcomes]

    return edgegym_reward


@dataclass
class TRLEnvironment:
    """What `GRPOTrainer` takes for one env; `trainer_kwargs()` spreads it into the trainer's call."""

    client: EnvClient
    manifest: Manifest
    system_prompt: str
    environment_factory: type[EdgegymEnvironment]
    reward_func: Callable[..., list[float]]
    dataset: Any

    def trainer_kwargs(self) -> dict[str, Any]:
        """`environment_factory`, `reward_funcs` and `train_dataset`."""
        return {
            "environment_factory": self.environment_factory,
            "reward_funcs": [self.reward_func],
            "train_dataset": self.dataset,
        }

    def grpo_config(self, **kwargs: Any) -> Any:
        """`grpo_config(...)` with `max_tool_calling_iterations` below the env's step limit (the answer is a step)."""
        from .config import grpo_config

        kwargs.setdefault("max_tool_calling_iterations", max(1, self.manifest.limits["maxSteps"] - 1))
        return grpo_config(**kwargs)
