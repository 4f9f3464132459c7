#!/bin/sh
# webshop-l1 2.0.0, validation only: GRPO with dynamic sampling from the copy-grpo SFT stage (seed-1 run).
cd /work/wt2  # a checkout of 65e2863 (webshop-l1 2.0.0)
ck=/work/runs90/webshop-l1-copy-grpo-s1/sft/checkpoints/final
date -u > /work/runs90/p2.start
npx tsx trainer/cli/main.ts train --env local:webshop-l1 --init $ck --config docs/results/runs/webshop-l1-lookup/s28/rl-base.json --iterations 20 --seed 1 --backend wasm --out /work/runs90/p2 --set reference=$ck --set filterGroups=true > /work/runs90/p2.log 2>&1
date -u > /work/runs90/p2.trained
npx tsx trainer/cli/main.ts eval --env local:webshop-l1 --policy /work/runs90/p2/checkpoints/final --split validation --n 500 --max-steps 4 --max-new-tokens 96 --temperature 0 --backend wasm --out /work/runs90/p2-val-final > /work/runs90/p2-eval.log 2>&1
date -u > /work/runs90/p2.done
