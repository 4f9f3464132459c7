set -u
cd /work/main
SFT=/work/runs80/search-l1-grpo-s1/sft/checkpoints/final-weights
O=/work/runs80
probe() { # name, iterations, then --set flags; validation after a third, two thirds and all of them
  local name=$1 iters=$2; shift 2
  echo "== $name start $(date -u +%T) at $(git rev-parse --short HEAD)"
  local t0=$(date +%s)
  npx tsx trainer/cli/main.ts train --env local:search-l1 --init $SFT --config $O/rl-base.json --iterations $iters --seed 1 --backend wasm --out $O/$name --set reference=$SFT "$@" > $O/$name.log 2>&1
  echo "== $name trained rc $? in $(( $(date +%s) - t0 )) s"
  for it in $((iters / 3)) $((2 * iters / 3)) $iters; do
    ck=$O/$name/checkpoints/iter-$it; [ ! -d $ck ] && ck=$O/$name/checkpoints/final
    local t1=$(date +%s)
    r=$(npx tsx trainer/cli/main.ts eval --env local:search-l1 --policy $ck --split validation --n 500 --max-steps 3 --max-new-tokens 80 --temperature 0 --backend wasm --out $O/$name-val-$it 2>&1 | grep "success rate")
    echo "$name iter $it validation500 $r ($(( $(date +%s) - t1 )) s)"
  done
}
while [ ! -s $O/done.txt ]; do sleep 10; done
for p in "$@"; do
  case $p in
    raft) probe raft 60 --set negativeAdvantageWeight=0 --set klCoef=0 ;;
    raft-mb16) probe raft-mb16 60 --set negativeAdvantageWeight=0 --set klCoef=0 --set miniBatchRows=16 ;;
    g16) probe g16 60 --set groupSize=16 --set maxLive=128 ;;
    filter) probe filter 60 --set filterGroups=true ;;
  esac
done
