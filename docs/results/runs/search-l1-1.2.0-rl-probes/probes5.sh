set -u
cd /work/main
SFT=/work/runs31/search-l1-grpo-s1/sft/checkpoints/final-weights
name=nokl-t1.3
echo "== $name start $(date -u +%T)"
t0=$(date +%s)
npx tsx trainer/cli/main.ts train --env local:search-l1 --init $SFT --config /work/runs32/rl-base.json --iterations 60 --seed 1 --backend wasm --out /work/runs32/$name --set reference=$SFT --set klCoef=0 --set temperature=1.3 > /work/runs32/$name.log 2>&1
echo "== $name trained rc $? in $(( $(date +%s) - t0 )) s"
for it in 20 40 60; do
  ck=/work/runs32/$name/checkpoints/iter-$it; [ ! -d $ck ] && ck=/work/runs32/$name/checkpoints/final
  echo "$name iter $it validation500 $(npx tsx trainer/cli/main.ts eval --env local:search-l1 --policy $ck --split validation --n 500 --max-steps 3 --max-new-tokens 80 --temperature 0 --backend wasm --out /work/runs32/$name-val-$it 2>&1 | grep 'success rate')"
done
