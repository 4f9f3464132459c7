#!/bin/sh
# The 2.0.0 recipe runs of 2026-11-28: seeds 2-3 of GRPO and 1-3 of StepPO adopt GRPO seed 1's SFT stage once
# it is evaluated. GRPO seed 2 lost wrangler's port race on its first start (14:34:39) and was run again at
# 14:47:42 by hand on port 8927 (./recipes-run.sh webshop-l1-2.0.0-copy-grpo-s2 8927 webshop-l1-2.0.0-copy-grpo-s1).
cd /work/runs91
G=webshop-l1-2.0.0-copy-grpo; S=webshop-l1-2.0.0-copy-steppo
until python3 -c "import json,sys; sys.exit(0 if json.load(open('$G-s1/state.json')).get('evalSft') else 1)" 2>/dev/null; do sleep 15; done
echo "s2,s3 start $(date -u)" >> chain.out
(./run.sh $G-s2 8922 $G-s1 &)
(./run.sh $G-s3 8923 $G-s1 &)
until [ -f $G-s1.done ]; do sleep 15; done
echo "steppo s1 start $(date -u)" >> chain.out
(./run.sh $S-s1 8924 $G-s1 &)
until [ -f $G-s2.done ]; do sleep 15; done
echo "steppo s2 start $(date -u)" >> chain.out
(./run.sh $S-s2 8925 $G-s1 &)
until [ -f $G-s3.done ]; do sleep 15; done
echo "steppo s3 start $(date -u)" >> chain.out
(./run.sh $S-s3 8926 $G-s1 &)
