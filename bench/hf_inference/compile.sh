#!/usr/bin/env bash
# Hugging Face inference benchmark, fkc's side: writes the prefill and
# decode-step graphs of GPT-2 small and a Llama-style model
# (bench/hf_inference/bench_models.py, through scripts/gpt2_inference_graph.py and
# scripts/llama_inference_graph.py) and compiles them into
# build/hf-artifacts-bench/, for bench/hf_inference/run.py on a GPU.
#
#   bash bench/hf_inference/compile.sh [FKC [FKC_OPTION...]]
#
# Options after FKC go to every fkc call (`--target=sm_80` benchmarks the
# kernels of other GPUs on this one); HF_BENCH_OUT names another folder.
#
# One artifact per (model, batch, prompt length), NAME.ptx, each holding the
# prefill graph of that prompt and the decode-step graph (the language has
# no symbolic sizes yet), beside NAME.graph and NAME.json (the model's
# transformers config and the call sizes, which run.py reads). No weights:
# run.py draws them on the GPU machine from the config.
set -euo pipefail
cd "$(dirname "$0")/../.."
fkc=${1:-${FKC:-build/bin/fkc}}
shift || true
python=${PYTHON:-.venv/bin/python}
[ -x "$python" ] || python=python3
out=${HF_BENCH_OUT:-build/hf-artifacts-bench}
rm -rf "$out"
mkdir -p "$out"
"$python" bench/hf_inference/bench_models.py "$out" > /dev/null
count=0
for graph in "$out"/*.graph; do
  "$fkc" "$graph" -o "${graph%.graph}.ptx" "$@"
  count=$((count + 1))
done
git rev-parse --short HEAD > "$out/COMMIT" 2>/dev/null || echo unknown > "$out/COMMIT"
printf '%s\n' "$*" > "$out/FKC_OPTIONS"
echo "hf_inference: compiled $count configurations into $out ($(du -sh "$out" | cut -f1))"
