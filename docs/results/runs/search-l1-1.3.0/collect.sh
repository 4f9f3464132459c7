#!/bin/sh
# collect.sh: copies each finished run's record (state, curve, log, RL metrics, seed recipe) into docs/results/runs/
cd /work/runs110
for d in search-l1-1.3.0-*; do
  [ -d "$d" ] && [ -f "$d.done" ] || continue
  o=/work/main/docs/results/runs/$d; mkdir -p $o
  cp $d/state.json $d/curve.json $d/job.log $o/; cp $d/rl/metrics.jsonl $o/rl-metrics.jsonl; cp $d.json $o/recipe.json
done
