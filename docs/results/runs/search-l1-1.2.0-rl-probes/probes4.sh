set -u
cd /work/main
K1D=/work/runs32/k1d-weights
name=k1d-nokl-120
echo "== $name start $(date -u +%T)"
t0=$(date +%s)
npx tsx trainer/cli/main.ts train --env local:search-l1 --init $K1D --config /work/runs32/rl-base.json --iterations 120 --seed 1 --backend wasm --out /work/runs32/$name --set reference=$K1D --set klCoef=0 > /work/runs32/$name.log 2>&1
echo "== $name trained rc $? in $(( $(date +%s) - t0 )) s"
for it in 40 80 120; do
  ck=/work/runs32/$name/checkpoints/iter-$it; [ ! -d $ck ] && ck=/work/runs32/$name/checkpoints/final
  echo "$name iter $it validation500 $(npx tsx trainer/cli/main.ts eval --env local:search-l1 --policy $ck --split validation --n 500 --max-steps 3 --max-new-tokens 80 --temperature 0 --backend wasm --out /work/runs32/$name-val-$it 2>&1 | grep 'success rate')"
done
