#!/usr/bin/env bash
# Wave quantization of the persistent wgmma kernel: products of 128 x 256
# tiles whose tile counts fill the H200's 132 SMs unevenly (8192 x 2048:
# 512 tiles, 3.88 waves, so 4 rounds) or exactly (8448 x 2048: 528 tiles, 4
# waves), at K = 4096 and 14336 (the Llama-sized layer's K's). If the last,
# partial round costs a whole round, both take the same time, and 8448 rows
# do 3.1% more work in it. Writes build/waves/*.ptx for
# bench/waves/run.sh on the GPU machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
fkc=${FKC:-build/bin/fkc}
out=build/waves
rm -rf "$out" && mkdir -p "$out"
for m in 8192 8448; do
  for k in 4096 14336; do
    name=gemm_${m}x2048x${k}
    cat > "$out/$name.graph" <<GRAPH
graph $name(a: f16[$m, $k], b: f16[$k, 2048]) {
  c = a @ b
  return c
}
GRAPH
    "$fkc" "$out/$name.graph" -o "$out/$name.ptx"
  done
done
echo "waves: artifacts in $out"
