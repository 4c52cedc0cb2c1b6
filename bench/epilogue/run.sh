#!/usr/bin/env bash
# What epilogues cost the tensor-core matmul kernel: each graph of
# bench/epilogue/epilogues.graph (the Llama-sized layer's products, bare and
# with their epilogues) timed by fkc-run --bench in alternating rounds. An
# A/B of a compiler change: compile once before it into another folder
# (FKC and OUT), then run both.
#
#   bash bench/epilogue/run.sh compile [OUT]            # here: build/epilogue
#   bash bench/epilogue/run.sh run FKC_RUN [ROUNDS] [OUT...]   # on the GPU
#
# The long products run at the GPU's power limit, where the clocks drop
# mid-run: the minimum of the runs is the steadier figure for comparing
# kernels, and both it and the median are printed.
set -euo pipefail
cd "$(dirname "$0")/../.."
graphs="up_bare up_silu gate_up_pair o_bare o_residual qkv_bare qkv_heads"
case ${1:-} in
compile)
  out=${2:-build/epilogue}
  mkdir -p "$out"
  "${FKC:-build/bin/fkc}" bench/epilogue/epilogues.graph --target=sm_90a -o "$out/epilogues.ptx" ;;
run)
  fkc_run=$2 rounds=${3:-3}
  shift $(( $# < 3 ? $# : 3 ))
  folders=("${@:-build/epilogue}")
  time_of() {
    "$fkc_run" "$1" --graph "$2" --bench --iterations 100 --warmup 20 2>&1 |
      sed -n 's/.*median \([0-9.]*\) ms, min \([0-9.]*\) ms.*/min \2 ms, median \1 ms/p'
  }
  for round in $(seq "$rounds"); do
    for g in $graphs; do
      for f in "${folders[@]}"; do
        echo "round $round $g ($f): $(time_of "$f/epilogues.ptx" "$g")"
      done
    done
  done ;;
*)
  sed -n '2,13p' "$0"; exit 2 ;;
esac
