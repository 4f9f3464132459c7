set -u
cd /work/main
SFT=/work/runs31/search-l1-grpo-s1/sft/checkpoints/final-weights
probe() { # name, then --set flags
  local name=$1; shift
  echo "== $name start $(date -u +%T)"
  local t0=$(date +%s)
  npx tsx trainer/cli/main.ts train --env local:search-l1 --init $SFT --config /work/runs32/rl-base.json --iterations 60 --seed 1 --backend wasm --out /work/runs32/$name --set reference=$SFT "$@" > /work/runs32/$name.log 2>&1
  echo "== $name trained rc $? in $(( $(date +%s) - t0 )) s"
  for it in 20 40 60; do
    ck=/work/runs32/$name/checkpoints/iter-$it; [ $it = 60 ] && [ ! -d $ck ] && ck=/work/runs32/$name/checkpoints/final
    r=$(npx tsx trainer/cli/main.ts eval --env local:search-l1 --policy $ck --split validation --n 500 --max-steps 3 --max-new-tokens 80 --temperature 0 --backend wasm --out /work/runs32/$name-val-$it 2>&1 | grep "success rate")
    echo "$name iter $it validation500 $r"
  done
}
probe neg1 --set negativeAdvantageWeight=1
probe lr1e-3 --set lr=0.001
probe nokl --set klCoef=0
probe t16 --set tasksPerIteration=16 --set maxLive=128
