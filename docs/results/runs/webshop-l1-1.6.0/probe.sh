#!/bin/bash
# GRPO from h2 with the webshop-l1 recipes' RL settings (rl-base.json, rewardFrom success), 20 iterations; validation 0..499 after 10 and 20.
set -e
cd /work/main
while pgrep -f "ws7/chain.sh" >/dev/null; do sleep 10; done
H=/work/ws7/h2/checkpoints/final
date -u +"probe start %T"
npx tsx trainer/cli/main.ts train --env local:webshop-l1 --init $H --config /work/ws7/rl-base.json --iterations 20 --seed 1 --backend wasm --out /work/ws7/gh20 --set reference=$H --set rewardFrom=success > /work/ws7/gh20.log 2>&1
date -u +"probe end %T"
for c in iter-10 final; do
  npx tsx trainer/cli/main.ts eval --env local:webshop-l1 --policy /work/ws7/gh20/checkpoints/$c --split validation --n 500 --max-steps 4 --max-new-tokens 96 --temperature 0 --backend wasm --out /work/ws7/gh20-val-$c > /work/ws7/gh20-val-$c.log 2>&1
  date -u +"eval $c end %T"
done
