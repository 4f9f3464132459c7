"""edgegym envs for TRL's `GRPOTrainer`.

    from edgegym.trl import environment
    env = environment("hub://edgegym/calculator-l1@latest")  # the token from EDGEGYM_TOKEN
    trainer = GRPOTrainer(model="Qwen/Qwen3-0.6B", args=env.grpo_config(output_dir="out"), **env.trainer_kwargs())
    trainer.train()
"""

from __future__ import annotations

from typing import Iterable

from ..client import EnvClient
from .adapter import EdgegymEnvironment, TRLEnvironment, environment_class, reward_function
from .config import grpo_config
from .dataset import task_dataset, task_rows
from .episode import Outcome, observation_text, outside_blocks
from .tools import annotation, constraints, tool_method


def environment(
    env: str,
    *,
    token: str | None = None,
    hub_url: str | None = None,
    split: str = "train",
    indices: Iterable[int] | None = None,
    seed: int | None = None,
    timeout: float = 30.0,
    verify_receipts: bool = True,
) -> TRLEnvironment:
    """An edgegym env (a URL, or `hub://owner/name@version` with a token) as `GRPOTrainer`'s arguments.

    Args:
        env: `http(s)://.../envs/<name>` or `hub://owner/name@version`.
        token: the hub's bearer token (else `EDGEGYM_TOKEN` or the file of `edgegym login`).
        hub_url: the hub of `hub://` refs (else `EDGEGYM_HUB_URL`, the file, `http://localhost:8787`).
        split: the split whose tasks are the rows.
        indices: the task indices (default: every task of the split).
        seed: seeds the episodes (seed + index per row), so a group's generations play the same episode.
        timeout: the deadline of each env call in seconds.
        verify_receipts: check each episode's receipt against the manifest's key (needs `cryptography`).
    """
    client = EnvClient(env, token=token, hub_url=hub_url, timeout=timeout, verify_receipts=verify_receipts)
    manifest = client.manifest()
    if split not in manifest.splits:
        raise ValueError(f"{manifest.name} has no split {split!r}; it has {', '.join(manifest.splits)}")
    rows = list(indices) if indices is not None else list(range(manifest.splits[split]))
    probe = client.start(split, index=rows[0] if rows else None)
    system_prompt = next((str(m.get("content") or "") for m in probe.messages if m.get("role") == "system"), "")
    return TRLEnvironment(
        client=client,
        manifest=manifest,
        system_prompt=system_prompt,
        environment_factory=environment_class(client, split, system_prompt),
        reward_func=reward_function(),
        dataset=task_dataset(system_prompt, split, rows, seed),
    )


__all__ = [
    "EdgegymEnvironment",
    "Outcome",
    "TRLEnvironment",
    "annotation",
    "constraints",
    "environment",
    "environment_class",
    "grpo_config",
    "observation_text",
    "outside_blocks",
    "reward_function",
    "task_dataset",
    "task_rows",
    "tool_method",
]
