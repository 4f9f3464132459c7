set -u
cd /work/main
SFT=/work/runs40/search-l1-grpo-s1/sft/checkpoints/final-weights
probe() { # name, then --set flags
  local name=$1; shift
  echo "== $name start $(date -u +%T) at $(git rev-parse --short HEAD)"
  local t0=$(date +%s)
  npx tsx trainer/cli/main.ts train --env local:search-l1 --init $SFT --config /work/runs41/rl-base.json --iterations 60 --seed 1 --backend wasm --out /work/runs41/$name --set reference=$SFT "$@" > /work/runs41/$name.log 2>&1
  echo "== $name trained rc $? in $(( $(date +%s) - t0 )) s"
  for it in 20 40 60; do
    ck=/work/runs41/$name/checkpoints/iter-$it; [ ! -d $ck ] && ck=/work/runs41/$name/checkpoints/final
    local t1=$(date +%s)
    r=$(npx tsx trainer/cli/main.ts eval --env local:search-l1 --policy $ck --split validation --n 500 --max-steps 3 --max-new-tokens 80 --temperature 0 --backend wasm --out /work/runs41/$name-val-$it 2>&1 | grep "success rate")
    echo "$name iter $it validation500 $r ($(( $(date +%s) - t1 )) s)"
  done
}
for p in "$@"; do
  case $p in
    t0.7) probe t0.7 --set temperature=0.7 ;;
    t0.5) probe t0.5 --set temperature=0.5 ;;
    nokl-t0.7) probe nokl-t0.7 --set temperature=0.7 --set klCoef=0 ;;
    mb16) probe mb16 --set miniBatchRows=16 ;;
    mb8) probe mb8 --set miniBatchRows=8 ;;
  esac
done
