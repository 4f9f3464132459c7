"""Opens edgegym checkpoint folders with transformers and compares them with what edgegym computed.

Input: a JSON list of cases, each a folder and edgegym's ids (and decoded text) for texts, its
decoding of single ids, its chat-template ids for conversations, and its greedy tokens after a
prompt (written by check-hf.ts). Output: one JSON object on stdout, per folder the tokenizer class
transformers built (with and without trust_remote_code) and each comparison; exit status 1 when any
comparison differs.
"""

import json
import sys

import torch
import transformers
from transformers import AutoModelForCausalLM, AutoTokenizer


def compare_tokenizer(tok, case: dict) -> dict:
    texts_differ, decodes_differ = [], []
    for t in case["texts"]:
        ids = tok.encode(t["text"], add_special_tokens=False)
        if ids != t["ids"]:
            texts_differ.append(t["name"])
        if tok.decode(t["ids"], skip_special_tokens=True) != t["decoded"]:
            decodes_differ.append(t["name"])
    ids_differ = [
        i for i, text in enumerate(case["idDecodes"]) if tok.decode([i], skip_special_tokens=False) != text
    ]
    chats_differ = []
    for c in case["chats"]:
        ids = tok.apply_chat_template(
            c["messages"], tools=c.get("tools"), add_generation_prompt=True, tokenize=True, return_dict=False
        )
        if isinstance(ids, dict) or hasattr(ids, "input_ids"):
            ids = ids["input_ids"]
        if list(ids) != c["ids"]:
            chats_differ.append(c["name"])
    return {
        "tokenizerClass": type(tok).__name__,
        "normalizer": str(tok.backend_tokenizer.normalizer),
        "tokenizerIds": len(tok),
        "textsSame": len(case["texts"]) - len(texts_differ),
        "textsDiffer": texts_differ,
        "decodesDiffer": decodes_differ,
        "idDecodesSame": len(case["idDecodes"]) - len(ids_differ),
        "idDecodesDiffer": ids_differ[:20],
        "chatsSame": len(case["chats"]) - len(chats_differ),
        "chatsDiffer": chats_differ,
    }


def agrees(t: dict, rows: int) -> bool:
    return (
        t["tokenizerIds"] <= rows
        and not t["textsDiffer"]
        and not t["decodesDiffer"]
        and not t["idDecodesDiffer"]
        and not t["chatsDiffer"]
    )


def check(case: dict) -> dict:
    folder = case["folder"]
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32).eval()
    rows = model.get_input_embeddings().weight.shape[0]
    plain = compare_tokenizer(AutoTokenizer.from_pretrained(folder), case)
    remote = compare_tokenizer(AutoTokenizer.from_pretrained(folder, trust_remote_code=True), case)
    prompt = torch.tensor([case["greedyPrompt"]])
    with torch.no_grad():
        # Every text's ids through the forward pass: an id past the embedding rows would raise here.
        for t in case["texts"]:
            if t["ids"]:
                model(torch.tensor([t["ids"]]))
        out = model.generate(
            prompt,
            max_new_tokens=len(case["greedy"]),
            do_sample=False,
            eos_token_id=None,
            pad_token_id=0,
        )[0, prompt.shape[1] :].tolist()
    greedy_same = out == case["greedy"]
    return {
        "folder": case["name"],
        "embeddingRows": rows,
        "autoTokenizer": plain,
        "trustRemoteCode": remote,
        "greedyTokens": len(out),
        "greedySame": greedy_same,
        "allSame": agrees(plain, rows) and agrees(remote, rows) and greedy_same,
    }


def main() -> None:
    cases = json.load(open(sys.argv[1], encoding="utf-8"))
    results = [check(c) for c in cases]
    all_same = all(r["allSame"] for r in results)
    print(
        json.dumps(
            {
                "transformers": transformers.__version__,
                "torch": torch.__version__,
                "texts": [t["name"] for t in cases[0]["texts"]],
                "chats": [c["name"] for c in cases[0]["chats"]],
                "allSame": all_same,
                "checkpoints": results,
            },
            indent=2,
        )
    )
    sys.exit(0 if all_same else 1)


if __name__ == "__main__":
    main()
