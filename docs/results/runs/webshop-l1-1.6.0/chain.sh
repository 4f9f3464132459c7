#!/bin/bash
# After h1 (drill on the letter, webshop-l1 1.6.0): h2 = h1 + 1,000 episodes on every step, then validation.
set -e
cd /work/main
while pgrep -f "out /work/ws7/h1 " >/dev/null; do sleep 10; done
date -u +"h2 start %T"
npx tsx trainer/cli/main.ts sft --env local:webshop-l1 --init /work/ws7/h1/checkpoints/final --episodes 1000 --epochs 1 --seed 96 --backend wasm --out /work/ws7/h2 --set batchRows=4 --set maxSteps=8 --set workers=2 --set lr=5e-4 --set model.contextLength=1536 > /work/ws7/h2.log 2>&1
date -u +"h2 end %T"
npx tsx trainer/cli/main.ts eval --env local:webshop-l1 --policy /work/ws7/h2/checkpoints/final --split validation --n 500 --max-steps 4 --max-new-tokens 96 --temperature 0 --backend wasm --out /work/ws7/h2-val500 > /work/ws7/h2-val500.log 2>&1
date -u +"eval end %T"
