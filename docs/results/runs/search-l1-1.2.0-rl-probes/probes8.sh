#!/bin/sh
# search-l1 1.2.0, validation only: StepPO with the value head detached from the trunk (valueTrunk=detached),
# from the recipes' SFT stage (search-l1-grpo-s1, made again here), otherwise search-l1-steppo's RL settings.
# $R/search-steppo-detached.json is steppo-detached-config.json in this folder; $R/sp/metrics.jsonl is steppo-detached.metrics.jsonl.
cd /work/wt
R=/work/runs100/probes
ck=/work/runs100/search-l1-grpo-s1/sft/checkpoints/final
while [ ! -f /work/runs100/search-l1-grpo-s1/curve.json ]; do sleep 10; done
date -u > $R/sp.start
npx tsx trainer/cli/main.ts train --env local:search-l1 --init $ck --config $R/search-steppo-detached.json --iterations 60 --seed 1 --backend wasm --out $R/sp --set reference=$ck --set checkpointEvery=20 > $R/sp.log 2>&1
date -u > $R/sp.trained
ev() { npx tsx trainer/cli/main.ts eval --env local:search-l1 --policy $1 --split validation --n 500 --max-steps 3 --max-new-tokens 80 --temperature 0 --backend wasm --out $2 > $2.log 2>&1; }
ev $R/sp/checkpoints/iter-20 $R/val-sp-20
ev $R/sp/checkpoints/iter-40 $R/val-sp-40
ev $R/sp/checkpoints/final $R/val-sp-60
ev $ck $R/val-search-sft
date -u > $R/sp.done
