#!/bin/sh
# Two chains side by side, started 10 s apart: REINFORCE++ seeds 1-3 (ports 8941-8943) and RLOO seeds 1-3 (8944-8946),
# each from webshop-l1-2.0.0-copy-grpo-s1's SFT stage and its evaluation.
cd /work/runs91
src=webshop-l1-2.0.0-copy-grpo-s1
( for s in 1 2 3; do ./run2.sh webshop-l1-2.0.0-copy-reinforce-pp-s$s 894$s $src; done ) &
sleep 10
( for s in 1 2 3; do ./run2.sh webshop-l1-2.0.0-copy-rloo-s$s 894$((s+3)) $src; done ) &
wait
