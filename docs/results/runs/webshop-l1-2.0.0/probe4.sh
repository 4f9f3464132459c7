#!/bin/sh
# webshop-l1 2.0.0, validation only: StepPO with the value head detached from the trunk (valueTrunk=detached),
# $R/webshop-steppo-detached.json is probe4-config.json in this folder; $R/wp/metrics.jsonl is probe4-metrics.jsonl.
# from the recipes' SFT stage (webshop-l1-2.0.0-copy-grpo-s1), otherwise webshop-l1-copy-steppo's RL settings.
cd /work/wt
R=/work/runs100/probes
ck=/work/runs91/webshop-l1-2.0.0-copy-grpo-s1/sft/checkpoints/final
date -u > $R/wp.start
npx tsx trainer/cli/main.ts train --env local:webshop-l1 --init $ck --config $R/webshop-steppo-detached.json --iterations 10 --seed 1 --backend wasm --out $R/wp --set reference=$ck --set filterGroups=true --set filterRounds=3 --set checkpointEvery=5 > $R/wp.log 2>&1
date -u > $R/wp.trained
ev() { npx tsx trainer/cli/main.ts eval --env local:webshop-l1 --policy $1 --split validation --n 500 --max-steps 4 --max-new-tokens 96 --temperature 0 --backend wasm --out $2 > $2.log 2>&1; }
ev $R/wp/checkpoints/final $R/val-wp-10
ev $R/wp/checkpoints/step-5 $R/val-wp-5
date -u > $R/wp.done

# Run after it (ctl.sh, and one eval by hand), the controls: the recipe's StepPO seed 1 (value head shared)
# after 5 and 10 iterations, and this probe's 5-iteration checkpoint (the first script named it step-5, which does not exist, so that evaluation failed and ran here).
ev() { npx tsx trainer/cli/main.ts eval --env local:webshop-l1 --policy $1 --split validation --n 500 --max-steps 4 --max-new-tokens 96 --temperature 0 --backend wasm --out $2 > $2.log 2>&1; }
ev /work/runs91/webshop-l1-2.0.0-copy-steppo-s1/rl/segment-1/checkpoints/final $R/val-steppo-shared-s1-10
ev $R/wp/checkpoints/iter-5 $R/val-wp-5
ev /work/runs91/webshop-l1-2.0.0-copy-steppo-s1/rl/segment-1/checkpoints/iter-5 $R/val-steppo-shared-s1-5
