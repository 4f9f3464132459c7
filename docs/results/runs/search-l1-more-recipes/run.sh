#!/bin/bash
# Runs seeds of a search-l1 recipe one after the other, each from runs40/search-l1-grpo-s1's SFT stage.
# A seed's recipe is the committed one with its seed added (so that the extends chain stays within 4).
# Usage: run.sh <out dir> <recipe prefix, e.g. search-l1-t16-> <first port> "<method> <seed>"...
out=$1; prefix=$2; p=$3; shift 3
cd /work/main
for pair in "$@"; do
  set -- $pair; m=$1; s=$2
  n=$prefix$m-s$s
  python3 -c "import json; r=json.load(open('recipes/$prefix$m.json')); r['rl']['seed']=$s; json.dump(r,open('$out/$n.json','w'),indent=2)"
  start=$(date +%s)
  npm start -- --recipe $out/$n.json --out $out/$n --reuse /work/runs40/search-l1-grpo-s1 --port $p --persist-to $out/d1-$p > $out/$n.out 2>&1
  echo "$n rc=$? $(( $(date +%s) - start )) s $(date -u +%T)" >> $out/done.txt
  p=$((p+1))
done
