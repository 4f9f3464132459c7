# search-l1 base, 4 layers: the committed 2-layer base (k1-e) expanded, then SFT stages on search-l1 1.2.0 demos.
set -u
cd /work/main
echo "== expand at $(git rev-parse --short HEAD) $(date -u +%T)"
[ -d /work/runs42/base4 ] || npx tsx trainer/cli/main.ts expand --init recipes/checkpoints/search-l1-sft --layers 4 --out /work/runs42/base4
prev=/work/runs42/base4
stage() { # name seed lr episodes
  local name=$1 seed=$2 lr=$3 eps=$4
  echo "== $name start $(date -u +%T) init $prev seed $seed lr $lr episodes $eps"
  local t0=$(date +%s)
  npx tsx trainer/cli/main.ts sft --env local:search-l1 --init $prev --episodes $eps --epochs 1 --seed $seed --backend wasm --set batchRows=4 --set maxSteps=3 --set workers=2 --set lr=$lr --out /work/runs42/$name > /work/runs42/$name.log 2>&1
  echo "== $name trained rc $? in $(( $(date +%s) - t0 )) s; $(grep -o 'sft rows: .*' /work/runs42/$name.log)"
  prev=/work/runs42/$name/checkpoints/final
  echo "$name validation200 $(npx tsx trainer/cli/main.ts eval --env local:search-l1 --policy $prev --split validation --n 200 --max-steps 3 --max-new-tokens 80 --temperature 0 --backend wasm --out /work/runs42/$name-val200 2>&1 | grep 'success rate')"
}
stage g1 46 0.0003 12000
stage g2 47 0.0003 12000
stage g3 48 0.0003 12000
stage g4 49 0.0003 12000
