#!/bin/bash
# Runs seeds of the webshop-l1 recipes one after the other. A seed's recipe is the committed one with its
# rl.seed set. The first run trains the recipes' SFT stage and every later run adopts it with --reuse;
# REUSE=<run dir> makes every run adopt that run's SFT stage instead.
# Usage: run.sh <out dir> <first port> "<method> <seed>"...   (method: grpo, steppo, rloo, reinforce-pp)
out=$1; p=$2; shift 2
first=${REUSE:-}
cd "$(dirname "$0")/../../../.."
for pair in "$@"; do
  set -- $pair; m=$1; s=$2
  n=webshop-l1-$m-s$s
  python3 -c "import json; r=json.load(open('recipes/webshop-l1-$m.json')); r.setdefault('rl',{})['seed']=$s; json.dump(r,open('$out/$n.json','w'),indent=2)"
  reuse=(); [ -n "$first" ] && reuse=(--reuse "$first")
  start=$(date +%s)
  npm start -- --recipe "$out/$n.json" --out "$out/$n" "${reuse[@]}" --port $p --persist-to "$out/d1-$p" > "$out/$n.out" 2>&1
  echo "$n rc=$? $(( $(date +%s) - start )) s $(date -u +%T)" >> "$out/done.txt"
  [ -z "$first" ] && first="$out/$n"
  p=$((p+1))
done
