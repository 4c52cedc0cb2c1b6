#!/usr/bin/env bash
# Artifacts compiled for parts of other SM counts, to check and time on one
# GPU how the runtime sizes persistent grids for the device it runs on
# (docs/artifact.md, `persistent`; runtime/lib/PersistentGrid.h). Writes
# build/persistent-grids/:
#   check/GRAPH-N.ptx/.fkt  three wgmma test graphs compiled with
#                           --sm-count=N (66, 113: odd, so no clusters; 264)
#                           and their inputs and reference outputs
#   bench/CASE-N-new.ptx    bench cases compiled with --sm-count=N
#   bench/CASE-N-old.ptx    the same without `persistent` in the manifest:
#                           the grid launched as compiled
# then run bench/persistent_grids/run.sh on the GPU machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
fkc=${FKC:-build/bin/fkc}
out=build/persistent-grids
rm -rf "$out" && mkdir -p "$out/check" "$out/bench"
for graph in matmul-clusters warp-specialized-matmul tma-store; do
  for n in 66 113 264; do
    "$fkc" "test/Codegen/$graph.graph" -o "$out/check/$graph-$n.ptx" \
      --reference "$out/check/$graph-$n.fkt" --seed 7 --sm-count=$n
  done
done
for case in gemm_f16_4096 gemm_f16_8192 llama_block_f16; do
  for n in 132 114 66 264; do
    "$fkc" "bench/cases/$case.graph" -o "$out/bench/$case-$n-new.ptx" --sm-count=$n
    sed 's/"persistent":{"cluster_blocks":[0-9]*,"sm_count":[0-9]*},\{0,1\}//g' \
      "$out/bench/$case-$n-new.ptx" > "$out/bench/$case-$n-old.ptx"
  done
done
echo "persistent_grids: artifacts in $out"
