#!/usr/bin/env bash
# Compiles bench/runtime_sizes/{mlp,causal_attention,decode_attention}.graph into
# build/runtime-sizes-artifacts/ for bench/runtime_sizes/run.py on a GPU:
# CASE.ptx, one artifact whose kernels read B and S at run time, and
# CASE_bB_sS.ptx, the graph compiled for each of run.py's sizes (--bind),
# the yardstick of what leaving the sizes to run time costs.
#
#   bash bench/runtime_sizes/compile.sh [FKC]
set -euo pipefail
cd "$(dirname "$0")/../.."
fkc=${1:-build/bin/fkc}
out=build/runtime-sizes-artifacts
mkdir -p "$out"
for case in mlp causal_attention decode_attention; do
  "$fkc" "bench/runtime_sizes/$case.graph" -o "$out/$case.ptx"
  for sizes in $(python3 bench/runtime_sizes/run.py --print-sizes "$case"); do
    IFS=, read -r batch tokens <<<"$sizes"
    "$fkc" "bench/runtime_sizes/$case.graph" --bind "B=$batch,S=$tokens" \
      -o "$out/${case}_b${batch}_s${tokens}.ptx"
  done
done
echo "compile.sh: artifacts in $out"
