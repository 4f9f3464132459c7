#!/bin/sh
# run.sh <name> <port> [reuse-name]: one recipe run from the worktree /work/wt (HEAD of main when started)
cd /work/wt
n=$1; p=$2
start=$(date -u +%s); date -u > /work/runs110/$n.start
if [ -n "$3" ]; then R="--reuse /work/runs110/$3"; else R=""; fi
npm start -- --recipe /work/runs110/$n.json --out /work/runs110/$n $R --port $p --persist-to /work/runs110/d1-$p > /work/runs110/$n.log 2>&1
echo "rc=$? wall=$(( $(date -u +%s) - start ))s end=$(date -u)" > /work/runs110/$n.done
