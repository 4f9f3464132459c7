#!/bin/bash
# webshop-l1 1.4.0 RL probe on validation only: probe.sh <name> <sft checkpoint> <iterations> <evals...> -- <--set flags>
set -u
cd /work/main
name=$1; sft=$2; iters=$3; shift 3
evals=(); while [ $# -gt 0 ] && [ "$1" != "--" ]; do evals+=($1); shift; done; [ $# -gt 0 ] && shift
echo "== $name start $(date -u +%T)"
t0=$(date +%s)
npx tsx trainer/cli/main.ts train --env local:webshop-l1 --init $sft --config /work/ws2/rl-base.json --iterations $iters --seed 1 --backend wasm --out /work/ws2/$name --set reference=$sft "$@" > /work/ws2/$name.log 2>&1
echo "== $name trained rc $? in $(( $(date +%s) - t0 )) s"
for it in "${evals[@]}"; do
  ck=/work/ws2/$name/checkpoints/iter-$it; [ -d $ck ] || ck=/work/ws2/$name/checkpoints/final
  r=$(npx tsx trainer/cli/main.ts eval --env local:webshop-l1 --policy $ck --split validation --n 500 --max-steps 4 --max-new-tokens 96 --temperature 0 --backend wasm --out /work/ws2/$name-val-$it 2>&1 | grep "success rate")
  echo "$name iter $it validation500 $r"
done
