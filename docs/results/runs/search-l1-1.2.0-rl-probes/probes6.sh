set -u
cd /work/main
SFT=/work/runs40/search-l1-grpo-s1/sft/checkpoints/final-weights
probe() { # name, iterations, then --set flags; validation after a third, two thirds and all of them
  local name=$1 iters=$2; shift 2
  echo "== $name start $(date -u +%T) at $(git rev-parse --short HEAD)"
  local t0=$(date +%s)
  npx tsx trainer/cli/main.ts train --env local:search-l1 --init $SFT --config /work/runs41/rl-base.json --iterations $iters --seed 1 --backend wasm --out /work/runs41/$name --set reference=$SFT "$@" > /work/runs41/$name.log 2>&1
  echo "== $name trained rc $? in $(( $(date +%s) - t0 )) s"
  for it in $((iters / 3)) $((2 * iters / 3)) $iters; do
    ck=/work/runs41/$name/checkpoints/iter-$it; [ ! -d $ck ] && ck=/work/runs41/$name/checkpoints/final
    local t1=$(date +%s)
    r=$(npx tsx trainer/cli/main.ts eval --env local:search-l1 --policy $ck --split validation --n 500 --max-steps 3 --max-new-tokens 80 --temperature 0 --backend wasm --out /work/runs41/$name-val-$it 2>&1 | grep "success rate")
    echo "$name iter $it validation500 $r ($(( $(date +%s) - t1 )) s)"
  done
}
for p in "$@"; do
  case $p in
    t0.7) probe t0.7 60 --set temperature=0.7 ;;
    t0.5) probe t0.5 60 --set temperature=0.5 ;;
    nokl-t0.7) probe nokl-t0.7 60 --set temperature=0.7 --set klCoef=0 ;;
    mb16) probe mb16 60 --set miniBatchRows=16 ;;
    mb8) probe mb8 60 --set miniBatchRows=8 ;;
    t16-120) probe t16-120 120 --set tasksPerIteration=16 --set maxLive=128 ;;
    t32) probe t32 60 --set tasksPerIteration=32 --set maxLive=256 ;;
  esac
done
