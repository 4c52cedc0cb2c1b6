#!/usr/bin/env bash
# Compiles bench/runtime_sizes/mlp.graph into build/runtime-sizes-artifacts/
# for bench/runtime_sizes/run.py on a GPU: mlp.ptx, one artifact whose
# kernels read B and S at run time, and mlp_bB_sS.ptx, the graph compiled
# for each of run.py's sizes (--bind), the yardstick of what leaving the
# sizes to run time costs.
#
#   bash bench/runtime_sizes/compile.sh [FKC]
set -euo pipefail
cd "$(dirname "$0")/../.."
fkc=${1:-build/bin/fkc}
out=build/runtime-sizes-artifacts
mkdir -p "$out"
"$fkc" bench/runtime_sizes/mlp.graph -o "$out/mlp.ptx"
for sizes in $(python3 bench/runtime_sizes/run.py --print-sizes); do
  IFS=, read -r batch tokens <<<"$sizes"
  "$fkc" bench/runtime_sizes/mlp.graph --bind "B=$batch,S=$tokens" \
    -o "$out/mlp_b${batch}_s${tokens}.ptx"
done
echo "compile.sh: artifacts in $out"
