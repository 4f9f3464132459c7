"""`GRPOConfig` with the one default that is wrong off a GPU."""

from __future__ import annotations

from typing import Any


def grpo_config(**kwargs: Any) -> Any:
    """`trl.GRPOConfig(**kwargs)`, but `bf16=False` unless given when there is no CUDA or `use_cpu=True`.

    TRL defaults `bf16` to True whenever `fp16` is unset, `use_cpu=True` included.
    """
    import torch
    from trl import GRPOConfig

    if "bf16" not in kwargs and not kwargs.get("fp16") and (kwargs.get("use_cpu") or not torch.cuda.is_available()):
        kwargs["bf16"] = False
    return GRPOConfig(**kwargs)
