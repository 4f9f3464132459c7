#!/bin/bash
# search-l1 seed 1 of StepPO and RLOO again, from runs40/search-l1-grpo-s1's SFT stage (the one seeds 2-3 used).
cd /work/main
p=8920
for m in steppo rloo; do
  n=search-l1-$m-s1
  echo "{ \"extends\": \"search-l1-$m\", \"rl\": { \"seed\": 1 } }" > /work/runs44/$n.json
  start=$(date +%s)
  npm start -- --recipe /work/runs44/$n.json --out /work/runs44/$n --reuse /work/runs40/search-l1-grpo-s1 --port $p --persist-to /work/runs44/d1-$p > /work/runs44/$n.out 2>&1
  echo "$n rc=$? $(( $(date +%s) - start )) s" >> /work/runs44/done.txt
  p=$((p+1))
done
