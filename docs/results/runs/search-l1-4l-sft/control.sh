# Control for g1: the committed 2-layer base (k1-e) continued on the same 12,000 demos (seed 46), fresh Adam, lr 3e-4.
set -u
cd /work/main
echo "== k1-f start $(date -u +%T) at $(git rev-parse --short HEAD)"
t0=$(date +%s)
npx tsx trainer/cli/main.ts sft --env local:search-l1 --init recipes/checkpoints/search-l1-sft --episodes 12000 --epochs 1 --seed 46 --backend wasm --set batchRows=4 --set maxSteps=3 --set workers=2 --set lr=0.0003 --out /work/runs42/k1-f > /work/runs42/k1-f.log 2>&1
echo "== k1-f trained rc $? in $(( $(date +%s) - t0 )) s; $(grep -o 'sft rows: .*' /work/runs42/k1-f.log)"
echo "k1-f validation200 $(npx tsx trainer/cli/main.ts eval --env local:search-l1 --policy /work/runs42/k1-f/checkpoints/final --split validation --n 200 --max-steps 3 --max-new-tokens 80 --temperature 0 --backend wasm --out /work/runs42/k1-f-val200 2>&1 | grep 'success rate')"
