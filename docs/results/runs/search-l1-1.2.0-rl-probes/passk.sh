set -u
cd /work/main
SFT=/work/runs40/search-l1-grpo-s1/sft/checkpoints/final-weights
T=$1
for s in 1 2 3 4 5 6 7 8; do
  npx tsx trainer/cli/main.ts eval --env local:search-l1 --policy $SFT --split validation --n 500 --max-steps 3 --max-new-tokens 80 --temperature $T --seed $s --backend wasm --out /work/runs41/passk-t$T-s$s 2>&1 | grep "success rate" | sed "s/^/T=$T seed $s /"
done
