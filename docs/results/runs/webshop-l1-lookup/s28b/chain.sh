#!/bin/bash
# The copy base (q1 = recipes/checkpoints/webshop-l1-copy-sft) through the recipes' SFT stage (64 demos,
# seed 82, lr 1e-4), then the named-grpo20 probe of GRPO on validation. The base's stage and its eval
# run niced beside seed 3; RL waits for seed 3 to finish.
cd /work/main
B=recipes/checkpoints/webshop-l1-copy-sft
echo "c64 start $(date -u +%T)" >> /work/ws10/chain.txt
nice -n 10 npx tsx trainer/cli/main.ts sft --env local:webshop-l1 --init $B --episodes 64 --epochs 1 --seed 82 --backend wasm --out /work/ws10/c64 --set batchRows=4 --set maxSteps=8 --set workers=2 --set lr=1e-4 --set model.contextLength=1536 > /work/ws10/c64.log 2>&1
echo "c64 rc=$? $(date -u +%T)" >> /work/ws10/chain.txt
nice -n 10 npx tsx trainer/cli/main.ts eval --env local:webshop-l1 --policy /work/ws10/c64/checkpoints/final --split validation --n 500 --max-steps 4 --max-new-tokens 96 --temperature 0 --backend wasm --out /work/ws10/c64-val500 > /work/ws10/c64-val.log 2>&1
echo "c64 eval rc=$? $(date -u +%T)" >> /work/ws10/chain.txt
until grep -q "named-grpo20-s3" /work/runs71/done.txt 2>/dev/null; do sleep 30; done
echo "g20 start $(date -u +%T)" >> /work/ws10/chain.txt
npx tsx trainer/cli/main.ts train --env local:webshop-l1 --init /work/ws10/c64/checkpoints/final --config /work/ws9/rl-base.json --iterations 20 --seed 1 --backend wasm --out /work/ws10/cg20 --set reference=/work/ws10/c64/checkpoints/final > /work/ws10/cg20.log 2>&1
echo "g20 rc=$? $(date -u +%T)" >> /work/ws10/chain.txt
npx tsx trainer/cli/main.ts eval --env local:webshop-l1 --policy /work/ws10/cg20/checkpoints/final --split validation --n 500 --max-steps 4 --max-new-tokens 96 --temperature 0 --backend wasm --out /work/ws10/cg20-val500 > /work/ws10/cg20-val.log 2>&1
echo "g20 eval rc=$? $(date -u +%T)" >> /work/ws10/chain.txt
