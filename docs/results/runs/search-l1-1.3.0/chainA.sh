#!/bin/sh
# GRPO, 16 tasks an iteration, at search-l1 1.3.0: seed 1 makes the SFT stage, seeds 2 and 3 adopt it.
cd /work/runs110
./run.sh search-l1-1.3.0-t16-grpo-s1 8951
for s in 2 3; do ./run.sh search-l1-1.3.0-t16-grpo-s$s 895$((s+1)) search-l1-1.3.0-t16-grpo-s1; done
