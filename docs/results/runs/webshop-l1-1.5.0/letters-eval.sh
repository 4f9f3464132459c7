#!/bin/bash
# Validation 0..199 of the recipes' SFT policy and each seed's final RL policy, for the letters they click.
# Usage: letters-eval.sh [sft | <method>-s<seed>]...   (no argument: the GRPO and StepPO runs)
cd /work/main
names=("$@"); [ ${#names[@]} -eq 0 ] && names=(sft grpo-s1 grpo-s2 grpo-s3 steppo-s1 steppo-s2 steppo-s3)
for n in "${names[@]}"; do
  if [ $n = sft ]; then ck=/work/runs50/webshop-l1-grpo-s1/sft/checkpoints/final; else ck=/work/runs50/webshop-l1-$n/rl/segment-1/checkpoints/final; fi
  npx tsx trainer/cli/main.ts eval --env local:webshop-l1 --policy $ck --split validation --n 200 --max-steps 4 --max-new-tokens 96 --temperature 0 --backend wasm --out /work/ws3/val200-$n 2>&1 | grep "success rate"
done
