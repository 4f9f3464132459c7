#!/bin/sh
# RLOO seeds 2 and 3 after all (ports 8945, 8946), once seed 1 is done; chain2.sh's RLOO loop had been stopped.
cd /work/runs91
while [ ! -f webshop-l1-2.0.0-copy-rloo-s1.done ]; do sleep 10; done
for s in 2 3; do ./run2.sh webshop-l1-2.0.0-copy-rloo-s$s 894$((s+3)) webshop-l1-2.0.0-copy-grpo-s1; done
