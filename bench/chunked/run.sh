#!/usr/bin/env bash
# A chunk of 32 new queries per head (8 heads of 64) over a cache of S keys
# given at run time (test/Codegen/runtime-sizes-chunked.graph): the flash
# kernel (`chunk`, `chunk_causal`, with `where 1 <= S` / `where 32 <= S`)
# against the naive kernels the same attention gets without a lower bound
# (`chunk_any`), one artifact, and PyTorch's SDPA (bench/chunked/sdpa_peer.py);
# then a decode step of 8 sequences over a run-time cache with and without
# `where 1 <= S` (bench/chunked/decode_step.graph: flash or decode kernel).
#
#   bash bench/chunked/run.sh compile          # here: build/chunked/chunked.ptx
#   bash bench/chunked/run.sh run FKC_RUN      # on the GPU machine
set -euo pipefail
cd "$(dirname "$0")/../.."
case ${1:-} in
compile)
  mkdir -p build/chunked
  build/bin/fkc test/Codegen/runtime-sizes-chunked.graph -o build/chunked/chunked.ptx
  build/bin/fkc bench/chunked/decode_step.graph -o build/chunked/decode_step.ptx ;;
run)
  for sz in B=1,S=4096 B=4,S=1024; do
    for g in chunk chunk_causal chunk_any; do
      echo "$g $sz: $("$2" build/chunked/chunked.ptx --graph $g --sizes $sz --bench \
        --iterations 300 --warmup 30 2>&1 | grep -o 'median [0-9.]* ms')"
    done
  done
  python3 bench/chunked/sdpa_peer.py
  for s in 512 4096 16384; do
    for g in step step_any; do
      echo "$g S=$s: $("$2" build/chunked/decode_step.ptx --graph $g --sizes S=$s --bench \
        --iterations 300 --warmup 30 2>&1 | grep -o 'median [0-9.]* ms')"
    done
  done ;;
*)
  sed -n '2,10p' "$0"; exit 2 ;;
esac
