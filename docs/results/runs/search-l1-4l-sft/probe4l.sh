# 4-layer search-l1 base g1: the recipe's SFT stage (256 demos, lr 3e-4, seed 3, batchRows 16, fresh Adam), then GRPO
# with the search-l1 recipes' RL settings (rl-base.json), validation only.
set -u
cd /work/main
echo "== sft start $(date -u +%T) at $(git rev-parse --short HEAD)"
t0=$(date +%s)
npx tsx trainer/cli/main.ts sft --env local:search-l1 --init /work/runs42/g1-weights --episodes 256 --epochs 1 --seed 3 --backend wasm --set batchRows=16 --set maxSteps=3 --set workers=2 --set lr=0.0003 --set model.contextLength=1024 --out /work/runs43/sft > /work/runs43/sft.log 2>&1
echo "== sft rc $? in $(( $(date +%s) - t0 )) s"
SFT=/work/runs43/sft/checkpoints/final
echo "sft validation500 $(npx tsx trainer/cli/main.ts eval --env local:search-l1 --policy $SFT --split validation --n 500 --max-steps 3 --max-new-tokens 80 --temperature 0 --backend wasm --out /work/runs43/sft-val500 2>&1 | grep 'success rate')"
name=grpo
t0=$(date +%s)
npx tsx trainer/cli/main.ts train --env local:search-l1 --init $SFT --config /work/runs41/rl-base.json --iterations 60 --seed 1 --backend wasm --out /work/runs43/$name --set reference=$SFT > /work/runs43/$name.log 2>&1
echo "== $name trained rc $? in $(( $(date +%s) - t0 )) s"
for it in 20 40 60; do
  ck=/work/runs43/$name/checkpoints/iter-$it; [ ! -d $ck ] && ck=/work/runs43/$name/checkpoints/final
  echo "$name iter $it validation500 $(npx tsx trainer/cli/main.ts eval --env local:search-l1 --policy $ck --split validation --n 500 --max-steps 3 --max-new-tokens 80 --temperature 0 --backend wasm --out /work/runs43/$name-val-$it 2>&1 | grep 'success rate')"
done
