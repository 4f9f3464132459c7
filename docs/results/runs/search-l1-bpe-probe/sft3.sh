#!/bin/bash
# search-l1 from scratch with a BPE tokenizer learned from search-l1's expert episodes.
cd /work/wt-bpe
while kill -0 28842 2>/dev/null; do sleep 5; done
R=/work/runs21
E="npx tsx trainer/cli/main.ts"
SHAPE="--set model.tokenizer=$R/tok-search-1024 --set model.dModel=96 --set model.nLayers=2 --set model.nHeads=6 --set model.nKvHeads=6 --set model.dFf=256 --set model.contextLength=512"
COMMON="--env local:search-l1 --epochs 1 --backend wasm --set maxSteps=3 --set workers=2 --set batchRows=4"
stage() { # name init episodes seed lr extra...
  local name=$1 init=$2 eps=$3 seed=$4 lr=$5; shift 5
  [ -e $R/STOP ] && { echo "stopped before $name $(date +%H:%M)" >> $R/chain.log; exit 0; }
  local t0=$(date +%s)
  echo "$name start $(date +%H:%M:%S) commit $(git rev-parse --short HEAD)" >> $R/chain.log
  $E sft $COMMON $init --episodes $eps --seed $seed --out $R/$name --set lr=$lr "$@" > $R/$name.log 2>&1
  echo "$name sft rc=$? wall $(( $(date +%s) - t0 )) s" >> $R/chain.log
  $E eval --env local:search-l1 --policy $R/$name/checkpoints/final --split validation --n 200 --max-steps 3 --max-new-tokens 80 --temperature 0 --backend wasm --out $R/$name-val > $R/$name-val.log 2>&1
  echo "$name val $(grep -o 'success rate *[0-9.]*' $R/$name-val.log) $(date +%H:%M)" >> $R/chain.log
}
stage B6 "--init $R/B5/checkpoints/final" 8000 46 0.0003
