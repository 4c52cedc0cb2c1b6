#!/usr/bin/env bash
# Launch overhead: times graphs with fkc-run --bench with and without CUDA
# graph replays (docs/artifact.md, "CUDA graphs"), and replays that run
# their launches in order (--serial-launches), and writes a table.
#
#   bash bench/launch/run.sh compile          # here: artifacts into build/launch-artifacts
#   bash bench/launch/run.sh run FKC_RUN OUT  # on the GPU machine: OUT/launch-overhead.md
#
# The graphs: bench/launch/tiny_layers.graph (36 short kernels at batch 1:
# launch-bound), the benchmark cases mlp_f16 and transformer_block_f16, and
# three split-K projections of one input (projections.graph, which a replay
# runs at once) beside the same as one product (projections_fused.graph).
# fkc-run --bench times runs between CUDA events with up to 64 runs in
# flight: when enqueueing is slower than the GPU, the GPU waits for the host
# and the times show it.
set -euo pipefail
cd "$(dirname "$0")/../.."
artifacts=build/launch-artifacts
graphs=(bench/launch/tiny_layers.graph bench/cases/mlp_f16.graph bench/cases/transformer_block_f16.graph
        bench/launch/projections.graph bench/launch/projections_fused.graph)

case ${1:-} in
compile)
  mkdir -p "$artifacts"
  for g in "${graphs[@]}"; do
    build/bin/fkc "$g" -o "$artifacts/$(basename "${g%.graph}").ptx"
  done
  # The commit compiled, for the report (the GPU machine's copy may have no
  # history).
  git rev-parse --short HEAD > "$artifacts/COMMIT" 2>/dev/null || echo unknown > "$artifacts/COMMIT"
  echo "launch: compiled ${#graphs[@]} graphs into $artifacts" ;;
run)
  fkc_run=$2 out=$3
  mkdir -p "$out"
  report=$out/launch-overhead.md
  device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1)
  {
    echo "# Launch overhead: CUDA graph replays ($device, $(cat "$artifacts/COMMIT" 2>/dev/null || echo unknown))"
    echo
    echo "\`bash bench/launch/run.sh run\`: median of 500 runs after 50 warm-up (fkc-run --bench), ms."
    echo
    echo "| graph | launches | kernel by kernel | CUDA graph | speed-up | CUDA graph, launches in order |"
    echo "|---|---|---|---|---|---|"
  } > "$report"
  for g in "${graphs[@]}"; do
    name=$(basename "${g%.graph}")
    ptx=$artifacts/$name.ptx
    launches=$(grep -o '"kernel"' "$ptx" | wc -l)
    median() {
      "$fkc_run" "$ptx" --bench --iterations 500 --warmup 50 "$@" |
        sed -n 's/.*median \([0-9.]*\) ms.*/\1/p' | head -n1
    }
    plain=$(median --no-cuda-graphs)
    replayed=$(median)
    in_order=$(median --serial-launches)
    speedup=$(python3 -c "print(f'{$plain / $replayed:.2f}x')")
    echo "| $name | $launches | $plain | $replayed | $speedup | $in_order |" >> "$report"
  done
  cat "$report" ;;
*)
  sed -n '2,12p' "$0"; exit 2 ;;
esac
