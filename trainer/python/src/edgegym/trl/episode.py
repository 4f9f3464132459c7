"""One edgegym episode driven by TRL's tool loop: the state behind an `environment_factory` instance.

How each mismatch between TRL's loop and edgegym/v1 is bridged:

- TRL never sends the model's final text and `get_reward()` takes no arguments, so the reward
  function calls `finish(completion)`, which sends the last assistant message as the final step.
- A malformed `<tool_call>` is plain text to TRL (its parser falls back to text) but an invalid call
  to edgegym: `finish` sends that text as the step it is (the env answers `Error: ...` and charges
  its invalid-call penalty), then ends the episode with the text outside the blocks as the answer.
- A `replace` observation (webshop's pages) cannot replace TRL's context, which only appends: the
  tool result is the new context's answer to this call (its tool message, else its messages after
  the last assistant turn), so the model sees the new page after the old ones.
- A tool result TRL drops for length has already cost an env step: `finish` counts them
  (`dropped_tool_results`) and ends the episode with the answer text the model has.
- A tool cannot tell TRL that the episode ended (webshop's buy, the step limit): its result then says
  so, later tool calls are refused without a step, and `finish` sends nothing more. TRL still asks for
  and trains on one more turn, which gets the episode's reward like the rest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..client import EnvClient, Session, StepResult, answer, tool_call
from ..errors import ReceiptError

_BLOCK = re.compile(r"<tool_call>.*?(?:</tool_call>|$)", re.DOTALL)
ENDED = "The episode is over (return {ret:g}). Do not call any more tools; reply with your final answer."
REFUSED = "Error: the episode is over (return {ret:g}); this call was not sent. Reply without a tool call."


@dataclass(frozen=True)
class Outcome:
    """How one rollout's episode ended, as the reward function reports it."""

    reward: float
    success: bool
    steps: int
    done: bool
    truncated: bool
    receipt: str | None
    dropped_tool_results: int
    malformed_tool_calls: bool


def outside_blocks(text: str) -> str:
    """The text outside `<tool_call>` blocks (an unterminated block runs to the end), as edgegym reads answers."""
    return _BLOCK.sub("", text).strip()


def observation_text(result: StepResult, call_id: str) -> str:
    """What a tool returns to TRL for one step's observation (append or replace)."""
    messages = result.messages
    mine = [m for m in messages if m.get("role") == "tool" and m.get("tool_call_id") == call_id]
    if mine:
        return "\n".join(str(m.get("content") or "") for m in mine)
    last_assistant = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    rest = [m for m in messages[last_assistant + 1 :] if m.get("role") != "system"]
    return "\n".join(str(m.get("content") or "") for m in rest)


class Episode:
    """The live episode of one rollout: its token, return so far, and whether it ended."""

    def __init__(self, client: EnvClient, session: Session) -> None:
        self.client = client
        self.session = session
        self.token = session.token
        self.steps = 0
        self.ret = 0.0
        self.last: StepResult | None = None
        self.tool_results = 0

    @property
    def done(self) -> bool:
        return self.last is not None and self.last.done

    def _step(self, action: Any) -> StepResult:
        result = self.client.step(self.token, action)
        self.token = result.token
        self.steps += 1
        self.ret += result.reward
        self.last = result
        if result.receipt_claims is not None and result.receipt_claims.get("episodeId") != self.session.episode_id:
            raise ReceiptError(f"the receipt is for episode {result.receipt_claims.get('episodeId')}, not {self.session.episode_id}")
        return result

    def call_tool(self, name: str, arguments: dict[str, Any]) -> str:
        """One tool call as one env step; its result text for TRL."""
        # Every call becomes one tool message in TRL's completion (a result or an error), unless dropped.
        self.tool_results += 1
        if self.done:
            return REFUSED.format(ret=self.ret)
        call_id = f"call_{self.steps}"
        result = self._step(tool_call(name, arguments, call_id))
        text = observation_text(result, call_id)
        return f"{text}\n\n{ENDED.format(ret=self.ret)}" if result.done else text

    def finish(self, completion: list[dict[str, Any]]) -> Outcome:
        """Ends the episode with the completion's final text, unless it already ended."""
        shown = sum(1 for m in completion if m.get("role") == "tool")
        assistant = [m for m in completion if m.get("role") == "assistant"]
        text = str(assistant[-1].get("content") or "") if assistant else ""
        malformed = "<tool_call>" in text
        if not self.done and malformed:
            self._step(answer(text))
        if not self.done:
            self._step(answer(outside_blocks(text)))
        last = self.last
        return Outcome(
            reward=self.ret,
            success=bool(last and last.done and last.success),
            steps=self.steps,
            done=bool(last and last.done),
            truncated=bool(last and last.truncated),
            receipt=last.receipt if last else None,
            dropped_tool_results=max(0, self.tool_results - shown),
            malformed_tool_calls=malformed,
        )
