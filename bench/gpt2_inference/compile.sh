#!/usr/bin/env bash
# GPT-2 small inference (prefill and decode step over in-place KV caches):
# writes the graphs with scripts/gpt2_inference_graph.py and compiles them
# into build/gpt2-artifacts/, for bench/gpt2_inference/run.py on a GPU.
#
#   bash bench/gpt2_inference/compile.sh [FKC]
#
# One artifact per (batch, prompt length): each holds the prefill graph of
# that prompt and the decode-step graph (the language has no symbolic sizes
# yet). `--skinny` variants are compiled with --matmul-tile=64,64,64 (64-row
# tensor-core tiles instead of 128) to measure the tile for decode's few rows.
set -euo pipefail
cd "$(dirname "$0")/../.."
fkc=${1:-build/bin/fkc}
out=build/gpt2-artifacts
mkdir -p "$out"
configs=("1 128" "16 128" "1 1024")
for config in "${configs[@]}"; do
  read -r batch prompt <<<"$config"
  name=gpt2_b${batch}_p${prompt}
  python3 scripts/gpt2_inference_graph.py --batch "$batch" --prompt "$prompt" \
    --out "$out/$name.graph"
  "$fkc" "$out/$name.graph" -o "$out/$name.ptx"
  "$fkc" "$out/$name.graph" --matmul-tile=64,64,64 -o "$out/${name}_skinny.ptx"
done
git rev-parse --short HEAD > "$out/COMMIT" 2>/dev/null || echo unknown > "$out/COMMIT"
echo "gpt2_inference: compiled ${#configs[@]} configurations into $out"
