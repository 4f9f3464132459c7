"""The training rows: one per task index, each with the env's system prompt (TRL reads it from the row)."""

from __future__ import annotations

from typing import Any, Iterable


def task_rows(
    system_prompt: str, split: str, indices: Iterable[int], seed: int | None = None
) -> dict[str, list[Any]]:
    """Columns `prompt` (system prompt, then an empty user turn that `reset` fills with the task), `split`, `index`.

    With `seed`, a `seed` column too (seed + index), so that every generation of a group plays the same episode.
    """
    idx = list(indices)
    prompt = [{"role": "system", "content": system_prompt}, {"role": "user", "content": ""}]
    columns: dict[str, list[Any]] = {"prompt": [prompt] * len(idx), "split": [split] * len(idx), "index": idx}
    if seed is not None:
        columns["seed"] = [seed + i for i in idx]
    return columns


def task_dataset(system_prompt: str, split: str, indices: Iterable[int], seed: int | None = None) -> Any:
    """`task_rows` as a `datasets.Dataset`."""
    from datasets import Dataset

    return Dataset.from_dict(task_rows(system_prompt, split, indices, seed))
