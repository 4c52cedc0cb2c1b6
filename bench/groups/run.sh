#!/usr/bin/env bash
# Matmul groups (docs/fusion.md, "Matmul groups"): each graph of
# bench/groups/projections.graph and the bench's transformer block compiled
# with its query, key and value projections in one kernel (the default) and
# with --no-matmul-groups (three kernels, which a CUDA graph replay runs at
# once), timed by fkc-run --bench in alternating rounds; beside them the
# block's three products as one product of concatenated weights.
#
#   bash bench/groups/run.sh compile            # here: build/groups/*.ptx
#   bash bench/groups/run.sh run FKC_RUN [ROUNDS]   # on the GPU machine
set -euo pipefail
cd "$(dirname "$0")/../.."
graphs="block_qkv gqa_qkv_2048"
case ${1:-} in
compile)
  mkdir -p build/groups
  for flags in "" --no-matmul-groups; do
    suffix=${flags:+_apart}
    build/bin/fkc bench/groups/projections.graph $flags -o build/groups/projections$suffix.ptx
    build/bin/fkc bench/cases/transformer_block_f16.graph $flags -o build/groups/block$suffix.ptx
  done ;;
run)
  fkc_run=$2 rounds=${3:-3}
  time_of() { "$fkc_run" "$@" --bench --iterations 300 --warmup 30 2>&1 | grep -o 'median [0-9.]* ms'; }
  for round in $(seq "$rounds"); do
    for g in $graphs; do
      echo "round $round $g: group $(time_of build/groups/projections.ptx --graph $g)," \
           "apart $(time_of build/groups/projections_apart.ptx --graph $g)"
    done
    echo "round $round block_qkv_concatenated: one product" \
         "$(time_of build/groups/projections.ptx --graph block_qkv_concatenated)"
    echo "round $round transformer_block_f16: group $(time_of build/groups/block.ptx)," \
         "apart $(time_of build/groups/block_apart.ptx)"
  done ;;
*)
  sed -n '2,9p' "$0"; exit 2 ;;
esac
