# What an SFT policy's webshop-l1 episodes do, from `edgegym eval --out <dir>`'s trajectories.jsonl:
# the share of first searches that hold at least half of the instruction's words, the share of clicks
# on a results page that name a product the page shows, and the share of episodes that bought.
# Usage: python3 actions.py <eval dir>
import json, re, sys
words = lambda t: set(re.findall(r"[a-z0-9]+", t.lower()))
n = close = clicks = shown = bought = 0
for line in open(sys.argv[1] + "/trajectories.jsonl"):
    e = json.loads(line)
    n += 1
    steps = e["steps"]
    first_page = steps[0]["observation"][-1]["content"] if steps else ""
    instr = re.search(r"Instruction: \[SEP\] (.*?) \[SEP\]", first_page)
    cmd = lambda s: (re.search(r'"command":"(.*?)"\}', s["action"]) or [None, ""])[1]
    if instr and steps:
        w = words(instr.group(1))
        if len(w & words(cmd(steps[0]))) >= len(w) / 2:
            close += 1
    for prev, s in zip(steps, steps[1:]):
        page = prev["observation"][-1]["content"]
        # A product click names neither of the page's buttons; products are asins or (webshop 1.3.0's lower levels) words.
        m = re.match(r"click\[(.+)\]$", cmd(s))
        if "Page 1 (Total results" in page and m and m.group(1).lower() not in ("back to search", "next >", "< prev"):
            clicks += 1
            ids = re.findall(r"\[SEP\] (B0[A-Z0-9]{8}|[A-Z][a-z]+) \[SEP\]", page)
            shown += m.group(1).lower() in [i.lower() for i in ids]
    bought += any(cmd(s) == "click[buy now]" for s in steps)
print(json.dumps({"dir": sys.argv[1], "episodes": n, "first_search_holds_half_the_instruction": round(close / n, 3),
                  "product_clicks_on_a_results_page": clicks, "of_them_a_product_shown": shown, "bought": bought}))
