#!/bin/sh
# webshop-l1 2.0.0, validation only: is the recipe's GRPO update too small? lr 1e-3 instead of 3e-4, from the
# recipe's SFT stage (webshop-l1-2.0.0-copy-grpo-s1), otherwise the recipe's RL settings.
cd /work/wtrun
R=/work/runs91
ck=$R/webshop-l1-2.0.0-copy-grpo-s1/sft/checkpoints/final
date -u > $R/p3.start
npx tsx trainer/cli/main.ts train --env local:webshop-l1 --init $ck --config docs/results/runs/webshop-l1-lookup/s28/rl-base.json --iterations 10 --seed 1 --backend wasm --out $R/p3 --set reference=$ck --set filterGroups=true --set filterRounds=3 --set checkpointEvery=5 --set lr=0.001 > $R/p3.log 2>&1
date -u > $R/p3.trained
ev() { npx tsx trainer/cli/main.ts eval --env local:webshop-l1 --policy $1 --split validation --n 500 --max-steps 4 --max-new-tokens 96 --temperature 0 --backend wasm --out $2 > $2.log 2>&1; }
ev $ck $R/val-sft
ev $R/webshop-l1-2.0.0-copy-grpo-s1/rl/segment-1/checkpoints/final $R/val-grpo-s1
ev $R/p3/checkpoints/final $R/val-p3
date -u > $R/p3.done
