#!/bin/bash
# Evaluates, task by task, the SFT policy and each search-l1 run's chosen RL checkpoint on test tasks
# 0..999 (the hub evaluations' tasks), greedy, so that paired.py can compare them on the same tasks.
# Usage: eval.sh <out dir> <run folder>...   (a run folder is a `npm start --out` folder with state.json)
out=$1; shift
cd /work/main
for run in "$@"; do
  name=$(basename "$run")
  ckpt=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['evalRl']['checkpoint'])" "$run/state.json")
  sft=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['evalSft']['checkpoint'])" "$run/state.json")
  [ -d "$out/sft" ] || npx tsx trainer/cli/main.ts eval --env local:search-l1 --policy "$sft" --split test --n 1000 --max-steps 3 --max-new-tokens 80 --temperature 0 --backend wasm --out "$out/sft" > "$out/sft.log" 2>&1
  npx tsx trainer/cli/main.ts eval --env local:search-l1 --policy "$ckpt" --split test --n 1000 --max-steps 3 --max-new-tokens 80 --temperature 0 --backend wasm --out "$out/$name" > "$out/$name.log" 2>&1
  echo "$name $ckpt rc=$?"
done
