#!/bin/bash
# webshop-l1 1.4.0 SFT stage: sft-stage.sh <name> <init> <episodes> <seed> <lr> <workers>
cd /work/main
start=$(date +%s)
npx tsx trainer/cli/main.ts sft --env local:webshop-l1 --init $2 --episodes $3 --epochs 1 --seed $4 --backend wasm --out /work/ws2/sft-$1 --set batchRows=4 --set maxSteps=8 --set workers=$6 --set lr=$5 --set model.contextLength=1536
echo "rc=$? $(( $(date +%s) - start )) s"
