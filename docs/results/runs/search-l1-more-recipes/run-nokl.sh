#!/bin/bash
# search-l1 second recipe (no KL): GRPO and StepPO seeds 1-3, then RLOO and REINFORCE++, each from runs40/search-l1-grpo-s1's SFT stage.
# A seed's recipe is the committed one with its seed added (so that the extends chain stays within 4).
cd /work/main
p=8942
for pair in "$@"; do
  set -- $pair; m=$1; s=$2
  n=search-l1-nokl-$m-s$s
  python3 -c "import json; r=json.load(open('recipes/search-l1-nokl-$m.json')); r['rl']['seed']=$s; json.dump(r,open('/work/runs46/$n.json','w'),indent=2)"
  start=$(date +%s)
  npm start -- --recipe /work/runs46/$n.json --out /work/runs46/$n --reuse /work/runs40/search-l1-grpo-s1 --port $p --persist-to /work/runs46/d1-$p > /work/runs46/$n.out 2>&1
  echo "$n rc=$? $(( $(date +%s) - start )) s $(date -u +%T)" >> /work/runs46/done.txt
  p=$((p+1))
done
