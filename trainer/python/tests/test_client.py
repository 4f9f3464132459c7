"""The client against the real Node env host (`npm run envs`)."""

from __future__ import annotations

import socket
import threading
import time
from typing import Iterator

import pytest

from edgegym import (
    ConnectionFailed,
    DeadlineError,
    EnvClient,
    ProblemError,
    ReceiptError,
    answer,
    tool_call,
    verify_receipt,
)
from edgegym.receipts import b64url_decode


@pytest.fixture()
def calc(envs: str) -> EnvClient:
    return EnvClient(f"{envs}/calculator-l1", timeout=20)


def test_an_episode_to_its_verified_receipt(calc: EnvClient) -> None:
    m = calc.manifest()
    assert (m.name, m.raw["protocol"]) == ("calculator-l1", "edgegym/v1")
    assert [t["function"]["name"] for t in m.tools] == ["calculator"]
    s = calc.start("train", index=0)
    assert (s.split, s.index) == ("train", 0)
    assert [x["role"] for x in s.messages] == ["system", "user"]
    # Task 0 of calculator-l1 is "Gus has 33 stamps and gives away 20. How many stamps now?"
    assert "33" in s.messages[1]["content"] and "20" in s.messages[1]["content"]
    r1 = calc.step(s, tool_call("calculator", {"expression": "33-20"}, "c1"))
    assert r1.messages == [{"role": "tool", "tool_call_id": "c1", "name": "calculator", "content": "13"}]
    assert (r1.done, r1.receipt, r1.success) == (False, None, None)
    r2 = calc.step(r1, answer("#### 13"))
    assert (r2.done, r2.truncated, r2.reward, r2.success) == (True, False, 1.0, True)
    claims = r2.receipt_claims
    assert claims is not None and claims["env"] == "calculator-l1" and claims["episodeId"] == s.episode_id
    assert (claims["steps"], claims["return"], claims["success"]) == (2, 1, True)
    assert claims["task"] == {"split": "train", "index": 0}


def test_hermes_text_actions_and_bad_calls_are_steps(calc: EnvClient) -> None:
    s = calc.start(index=0)
    r = calc.step(s, '<tool_call>{"name": "calculator", "arguments": {"expression": "2+2"}}</tool_call>')
    assert r.messages[0]["role"] == "user" and "4" in r.messages[0]["content"]
    bad = calc.step(r, '<tool_call>{"name": "calculator", "arguments": {</tool_call>')
    assert bad.done is False and bad.messages[0]["content"].count("Error:") == 1
    assert bad.info["invalid_calls"] == 1


def test_stepping_one_token_twice_forks_the_episode(calc: EnvClient) -> None:
    s = calc.start(index=3, seed=11)
    a = calc.step(s, tool_call("calculator", {"expression": "6/2"}))
    b = calc.step(s, tool_call("calculator", {"expression": "6/2"}))
    assert (a.messages, a.reward, a.done, a.info) == (b.messages, b.reward, b.done, b.info)
    right = calc.step(a, answer("#### 3"))
    wrong = calc.step(a, answer("#### 4"))
    assert (right.success, wrong.success) == (True, False)
    assert right.receipt_claims and wrong.receipt_claims
    assert right.receipt_claims["episodeId"] == wrong.receipt_claims["episodeId"] == s.episode_id


def test_a_batch_fails_item_by_item(calc: EnvClient) -> None:
    s = calc.start(index=0)
    out = calc.step_batch([(s, tool_call("calculator", {"expression": "1+1"})), ("not-a-token", answer("#### 1"))])
    assert out[0].messages[0]["content"] == "2"  # type: ignore[union-attr]
    assert isinstance(out[1], ProblemError) and out[1].code == "invalid_session" and out[1].status == 401


def test_refusals_are_problem_errors_with_their_codes(calc: EnvClient) -> None:
    with pytest.raises(ProblemError) as e:
        calc.step("x.y.z", answer("1"))
    assert (e.value.code, e.value.status) == ("invalid_session", 401)
    with pytest.raises(ProblemError) as e:
        calc.start("nope")
    assert (e.value.code, e.value.status) == ("unknown_split", 404)
    done = calc.step(calc.start(index=0), answer("#### 0"))
    with pytest.raises(ProblemError) as e:
        calc.step(done, answer("#### 1"))
    assert (e.value.code, e.value.status) == ("episode_done", 409)
    with pytest.raises(ProblemError) as e:
        calc.expert(calc.start("test", index=0))
    assert (e.value.code, e.value.status) == ("expert_forbidden", 403)
    assert "expert_forbidden (HTTP 403)" in str(e.value)


def test_the_expert_answers_on_train(calc: EnvClient) -> None:
    action = calc.expert(calc.start(index=0))
    assert action.get("content") or action.get("tool_calls")


def test_a_changed_receipt_does_not_verify(calc: EnvClient) -> None:
    r = calc.step(calc.start(index=0), answer("#### 13"))
    assert r.receipt is not None
    key = calc.manifest().public_key
    assert verify_receipt(r.receipt, key)["finalReward"] == 1
    head, payload, sig = r.receipt.split(".")
    forged = b64url_decode(payload).replace(b'"finalReward":1', b'"finalReward":9')
    assert forged != b64url_decode(payload)
    import base64

    forged_b64 = base64.urlsafe_b64encode(forged).rstrip(b"=").decode()
    with pytest.raises(ReceiptError, match="does not verify"):
        verify_receipt(f"{head}.{forged_b64}.{sig}", key)
    other = dict(key, x=base64.urlsafe_b64encode(bytes(32)).rstrip(b"=").decode(), kid=None)
    with pytest.raises(ReceiptError):
        verify_receipt(r.receipt, other)


@pytest.fixture()
def silent_server() -> Iterator[int]:
    """A server that accepts, answers headers, then drips its body a byte at a time and never ends it."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    stop = threading.Event()

    def serve() -> None:
        sock.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                continue
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n")
            while not stop.is_set():
                try:
                    conn.sendall(b" ")
                except OSError:
                    break
                time.sleep(0.1)
            conn.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    yield sock.getsockname()[1]
    stop.set()
    t.join()
    sock.close()


def test_a_dripping_body_hits_the_deadline(silent_server: int) -> None:
    client = EnvClient(f"http://127.0.0.1:{silent_server}/envs/x", timeout=1.0, verify_receipts=False)
    with pytest.raises(DeadlineError):
        client.manifest()


def test_nothing_listening_is_a_connection_error() -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    with pytest.raises(ConnectionFailed, match="cannot connect"):
        EnvClient(f"http://127.0.0.1:{port}/envs/x", verify_receipts=False).manifest()
