"""Opens edgegym checkpoint folders with transformers and compares them with what edgegym computed.

Input: a JSON list of cases, each a folder and edgegym's ids for texts, its chat-template ids for
conversations, and its greedy tokens after a prompt (written by check-hf.ts). Output: one JSON
object on stdout, per folder the tokenizer class transformers built and each comparison.
"""

import json
import sys

import torch
import transformers
from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedTokenizerFast


def check(case: dict) -> dict:
    folder = case["folder"]
    tok = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32).eval()
    texts = [
        {"name": t["name"], "same": tok.encode(t["text"], add_special_tokens=False) == t["ids"]}
        for t in case["texts"]
    ]
    # The folder's tokenizer.json as written, whatever class AutoTokenizer picks for the model type.
    fast = PreTrainedTokenizerFast.from_pretrained(folder)
    fast_texts = [fast.encode(t["text"], add_special_tokens=False) == t["ids"] for t in case["texts"]]
    chats = []
    for c in case["chats"]:
        ids = tok.apply_chat_template(
            c["messages"], tools=c.get("tools"), add_generation_prompt=True, tokenize=True, return_dict=False
        )
        if isinstance(ids, dict) or hasattr(ids, "input_ids"):
            ids = ids["input_ids"]
        chats.append({"name": c["name"], "same": list(ids) == c["ids"]})
    prompt = torch.tensor([case["greedyPrompt"]])
    with torch.no_grad():
        out = model.generate(
            prompt,
            max_new_tokens=len(case["greedy"]),
            do_sample=False,
            eos_token_id=None,
            pad_token_id=tok.pad_token_id if tok.pad_token_id is not None else 0,
        )[0, prompt.shape[1] :].tolist()
    return {
        "folder": case["name"],
        "tokenizerClass": type(tok).__name__,
        "normalizer": str(tok.backend_tokenizer.normalizer),
        "tokenizerIds": len(tok),
        "embeddingRows": model.get_input_embeddings().weight.shape[0],
        "textsSame": sum(t["same"] for t in texts),
        "textsDiffer": [t["name"] for t in texts if not t["same"]],
        "fastTextsDiffer": [t["name"] for t, same in zip(case["texts"], fast_texts) if not same],
        "chatsSame": sum(c["same"] for c in chats),
        "chatsDiffer": [c["name"] for c in chats if not c["same"]],
        "greedySame": out == case["greedy"],
    }


def main() -> None:
    cases = json.load(open(sys.argv[1], encoding="utf-8"))
    results = [check(c) for c in cases]
    print(
        json.dumps(
            {
                "transformers": transformers.__version__,
                "torch": torch.__version__,
                "checkpoints": results,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
