set -e
cd /work/main
prev=/work/runs30/k1-c
seed=44
for st in d e; do
  date
  /usr/bin/time -f "wall %e s" npx tsx trainer/cli/main.ts sft --env local:search-l1 --init $prev/checkpoints/final --episodes 12000 --epochs 1 --seed $seed --set lr=0.0003 --set batchRows=4 --set maxSteps=3 --set workers=2 --backend wasm --out /work/runs30/k1-$st
  npx tsx trainer/cli/main.ts eval --env local:search-l1 --policy /work/runs30/k1-$st/checkpoints/final --split validation --n 200 --max-steps 3 --max-new-tokens 80 --temperature 0 --backend wasm --out /work/runs30/k1-$st-eval
  prev=/work/runs30/k1-$st
  seed=$((seed+1))
done
date
