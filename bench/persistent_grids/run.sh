#!/usr/bin/env bash
# On the GPU machine, after bench/persistent_grids/compile.sh: checks the
# artifacts compiled for other SM counts against the reference interpreter
# (and two under compute-sanitizer), then times each bench case compiled
# for N SMs with the runtime sizing its persistent grids ('new') and with
# the grid as compiled ('old'), two rounds.
#
#   bash bench/persistent_grids/run.sh [FKC_RUN]
set -u
cd "$(dirname "$0")/../.."
run=${1:-build/bin/fkc-run}
dir=build/persistent-grids
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
echo "## correctness (persistent grids resized to the device's SMs)"
for f in "$dir"/check/*.ptx; do
  echo "== $f"; timeout 120 "$run" "$f" --check "${f%.ptx}.fkt" 2>&1 | tail -1
done
echo "## sanitizers"
for f in "$dir/check/matmul-clusters-66.ptx" "$dir/check/warp-specialized-matmul-264.ptx"; do
  for tool in memcheck racecheck; do
    echo "== $tool $f"
    timeout 200 compute-sanitizer --tool $tool "$run" "$f" --check "${f%.ptx}.fkt" 2>&1 | tail -2
  done
done
echo "## bench: artifacts compiled for N SMs; old = the manifest without 'persistent' (the grid as compiled)"
for round in 1 2; do
  for c in gemm_f16_4096 gemm_f16_8192 llama_block_f16; do
    for n in 132 114 66 264; do
      for s in new old; do
        printf "%s %s %s round%s: " $c $n $s $round
        timeout 60 "$run" "$dir/bench/$c-$n-$s.ptx" --bench --iterations 30 --warmup 10 2>&1 |
          grep -o "median [0-9.]* ms" | head -1
      done
    done
  done
done
