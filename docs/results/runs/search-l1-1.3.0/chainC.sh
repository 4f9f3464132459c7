#!/bin/sh
# REINFORCE++, then RLOO, at search-l1 1.3.0 (the recipes as at 1.2.0), once chain B is done; each adopts GRPO seed 1's SFT stage.
cd /work/runs110
until [ -f search-l1-1.3.0-detached-steppo-s3.done ]; do sleep 20; done
for s in 1 2 3; do ./run.sh search-l1-1.3.0-reinforce-pp-s$s 897$s search-l1-1.3.0-t16-grpo-s1; done
for s in 1 2 3; do ./run.sh search-l1-1.3.0-rloo-s$s 898$s search-l1-1.3.0-t16-grpo-s1; done
