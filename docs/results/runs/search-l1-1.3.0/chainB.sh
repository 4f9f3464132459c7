#!/bin/sh
# StepPO with the value head detached at search-l1 1.3.0, adopting GRPO seed 1's SFT stage (and its evaluation, once GRPO seed 1 has made it: seed 1 here starts before, so it evaluates the same SFT policy itself).
cd /work/runs110
until grep -q '"sft"' search-l1-1.3.0-t16-grpo-s1/state.json 2>/dev/null; do sleep 10; done
for s in 1 2 3; do ./run.sh search-l1-1.3.0-detached-steppo-s$s 896$s search-l1-1.3.0-t16-grpo-s1; done
