#!/usr/bin/env bash
# Compiles bench/runtime_sizes/{mlp,causal_attention,decode_attention}{,_unbounded}.graph
# and scores_softmax.graph into
# build/runtime-sizes-artifacts/ for bench/runtime_sizes/run.py on a GPU:
# CASE.ptx, one artifact whose kernels read B and S at run time, and
# CASE_bB_sS.ptx, the graph compiled for each of run.py's sizes (--bind),
# the yardstick of what leaving the sizes to run time costs.
# FKC_RUNTIME_SIZES_VARIANT_FLAGS, if set, compiles the one artifact again
# with those fkc flags (CASE_variant.ptx), which run.py times beside it
# (e.g. "--attention-tile=128,128" for attention without row variants).
# FKC_RUNTIME_SIZES_CASES (space-separated) narrows the cases compiled.
#
#   bash bench/runtime_sizes/compile.sh [FKC]
set -euo pipefail
cd "$(dirname "$0")/../.."
fkc=${1:-build/bin/fkc}
out=build/runtime-sizes-artifacts
mkdir -p "$out"
for case in ${FKC_RUNTIME_SIZES_CASES:-mlp mlp_unbounded causal_attention causal_attention_unbounded decode_attention decode_attention_unbounded scores_softmax}; do
  "$fkc" "bench/runtime_sizes/$case.graph" -o "$out/$case.ptx"
  if [ -n "${FKC_RUNTIME_SIZES_VARIANT_FLAGS:-}" ]; then
    # shellcheck disable=SC2086
    "$fkc" "bench/runtime_sizes/$case.graph" $FKC_RUNTIME_SIZES_VARIANT_FLAGS \
      -o "$out/${case}_variant.ptx"
  else
    rm -f "$out/${case}_variant.ptx"
  fi
  for sizes in $(python3 bench/runtime_sizes/run.py --print-sizes "$case"); do
    IFS=, read -r batch tokens <<<"$sizes"
    "$fkc" "bench/runtime_sizes/$case.graph" --bind "B=$batch,S=$tokens" \
      -o "$out/${case}_b${batch}_s${tokens}.ptx"
  done
done
echo "compile.sh: artifacts in $out"
