#!/bin/sh
# run2.sh <name> <port> [reuse-name]: one recipe seed, from the worktree /work/wt
cd /work/wt
n=$1; p=$2
start=$(date -u +%s); date -u > /work/runs91/$n.start
if [ -n "$3" ]; then R="--reuse /work/runs91/$3"; else R=""; fi
npm start -- --recipe /work/runs91/$n.json --out /work/runs91/$n $R --port $p --persist-to /work/runs91/d1-$p > /work/runs91/$n.log 2>&1
echo "rc=$? wall=$(( $(date -u +%s) - start ))s end=$(date -u)" > /work/runs91/$n.done
