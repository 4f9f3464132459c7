set -u
cd /work/main
C=/work/ws10/c64/checkpoints/final
O=/work/runs80
while pgrep -f "probes2.sh" >/dev/null || pgrep -f "probes.sh raft" >/dev/null; do sleep 10; done
echo "== wf20 start $(date -u +%T) at $(git rev-parse --short HEAD)"
t0=$(date +%s)
npx tsx trainer/cli/main.ts train --env local:webshop-l1 --init $C --config docs/results/runs/webshop-l1-lookup/s28/rl-base.json --iterations 20 --seed 1 --backend wasm --out $O/wf20 --set reference=$C --set filterGroups=true > $O/wf20.log 2>&1
echo "== wf20 trained rc $? in $(( $(date +%s) - t0 )) s"
for ck in iter-10 final; do
  t1=$(date +%s)
  r=$(npx tsx trainer/cli/main.ts eval --env local:webshop-l1 --policy $O/wf20/checkpoints/$ck --split validation --n 500 --max-steps 4 --max-new-tokens 96 --temperature 0 --backend wasm --out $O/wf20-val-$ck 2>&1 | grep "success rate")
  echo "wf20 $ck validation500 $r ($(( $(date +%s) - t1 )) s)"
done
