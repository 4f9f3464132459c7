#!/bin/bash
# search-l1 REINFORCE++ seeds 1-3 again, from runs40/search-l1-grpo-s1's SFT stage (as every other method's seeds),
# so that their checkpoints can be evaluated task by task; then that evaluation.
cd /work/main
while pgrep -f "search-l1-paired/eval.sh" > /dev/null; do sleep 20; done
p=8930
for s in 1 2 3; do
  n=search-l1-reinforce-pp-s$s
  echo "{ \"extends\": \"search-l1-reinforce-pp\", \"rl\": { \"seed\": $s } }" > /work/runs45/$n.json
  start=$(date +%s)
  npm start -- --recipe /work/runs45/$n.json --out /work/runs45/$n --reuse /work/runs40/search-l1-grpo-s1 --port $p --persist-to /work/runs45/d1-$p > /work/runs45/$n.out 2>&1
  echo "$n rc=$? $(( $(date +%s) - start )) s" >> /work/runs45/done.txt
  p=$((p+1))
done
docs/results/runs/search-l1-paired/eval.sh /work/paired /work/runs45/search-l1-reinforce-pp-s{1,2,3} >> /work/paired/eval.out 2>&1
