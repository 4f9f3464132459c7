#!/bin/bash
# search-l1 PPO with the first recipe's settings, seeds 1-3, from runs40/search-l1-grpo-s1's SFT stage.
# A seed's recipe is the committed one with its seed added (so that the extends chain stays within 4).
cd /work/main
p=${PORT:-8990}
for pair in "$@"; do
  set -- $pair; m=$1; s=$2
  n=search-l1-$m-s$s
  python3 -c "import json; r=json.load(open('recipes/search-l1-$m.json')); r['rl']['seed']=$s; json.dump(r,open('/work/runs48/$n.json','w'),indent=2)"
  start=$(date +%s)
  npm start -- --recipe /work/runs48/$n.json --out /work/runs48/$n --reuse /work/runs40/search-l1-grpo-s1 --port $p --persist-to /work/runs48/d1-$p > /work/runs48/$n.out 2>&1
  echo "$n rc=$? $(( $(date +%s) - start )) s $(date -u +%T)" >> /work/runs48/done.txt
  p=$((p+1))
done
