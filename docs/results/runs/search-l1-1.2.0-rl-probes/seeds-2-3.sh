#!/bin/bash
# search-l1 seeds 2 and 3 of GRPO, StepPO and RLOO, each from runs40/search-l1-grpo-s1's SFT stage.
cd /work/main
p=8910
for m in grpo steppo rloo; do for s in 2 3; do
  n=search-l1-$m-s$s
  echo "{ \"extends\": \"search-l1-$m\", \"rl\": { \"seed\": $s } }" > /work/runs44/$n.json
  start=$(date +%s)
  npm start -- --recipe /work/runs44/$n.json --out /work/runs44/$n --reuse /work/runs40/search-l1-grpo-s1 --port $p --persist-to /work/runs44/d1-$p > /work/runs44/$n.out 2>&1
  echo "$n rc=$? $(( $(date +%s) - start )) s" >> /work/runs44/done.txt
  p=$((p+1))
done; done
