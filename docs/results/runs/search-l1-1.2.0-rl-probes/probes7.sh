#!/bin/bash
# The t16 recipe's RL (search-l1-t16-grpo: 16 tasks an iteration, KL 0.1 kept) run to 120 iterations from the
# SFT policy, validation 0..499 after 40 / 80 / 120. Session of 2026-11-27 from 14:31 UTC.
set -u
cd /work/main
SFT=/work/runs40/search-l1-grpo-s1/sft/checkpoints/final-weights
name=t16-120
echo "== $name start $(date -u +%T) at $(git rev-parse --short HEAD)"
t0=$(date +%s)
npx tsx trainer/cli/main.ts train --env local:search-l1 --init $SFT --config /work/runs41/rl-base.json --iterations 120 --seed 1 --backend wasm --out /work/runs41/$name --set reference=$SFT --set tasksPerIteration=16 --set maxLive=128 > /work/runs41/$name.log 2>&1
echo "== $name trained rc $? in $(( $(date +%s) - t0 )) s"
for it in 40 80 120; do
  ck=/work/runs41/$name/checkpoints/iter-$it; [ ! -d $ck ] && ck=/work/runs41/$name/checkpoints/final
  t1=$(date +%s)
  r=$(npx tsx trainer/cli/main.ts eval --env local:search-l1 --policy $ck --split validation --n 500 --max-steps 3 --max-new-tokens 80 --temperature 0 --backend wasm --out /work/runs41/$name-val-$it 2>&1 | grep "success rate")
  echo "$name iter $it validation500 $r ($(( $(date +%s) - t1 )) s)"
done
