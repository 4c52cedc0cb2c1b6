#!/usr/bin/env bash
# Decode attention at 512 keys (bench/cases/attention_decode_512: batch 8,
# 32 heads of 128, one query row each): fkc's kernel variants against SDPA's
# cuDNN and flash backends, each timed on the GPU alone.
#
#   bash bench/decode_variants/run.sh compile          # here: build/decode-variants/
#   bash bench/decode_variants/run.sh run FKC_RUN OUT  # on the GPU machine: OUT/decode-variants.txt
#
# Variants: the flash kernel as fk-tile picks it (64 x 64 blocks, 2
# stages), with other --attention-tile and --stages, and the decode kernel
# (split keys) of bench/runtime_sizes/decode_attention.graph at B=8, S=512.
# fkc-run --bench times back-to-back CUDA-graph replays between CUDA
# events; SDPA is timed the same way, as a CUDA graph of 20 calls.
set -euo pipefail
cd "$(dirname "$0")/../.."
artifacts=build/decode-variants
case=bench/cases/attention_decode_512.graph

case ${1:-} in
compile)
  mkdir -p "$artifacts"
  build/bin/fkc "$case" -o "$artifacts/flash_default.ptx"
  for tile in 64,128 128,64 128,128; do
    build/bin/fkc "$case" --attention-tile="$tile" -o "$artifacts/flash_tile_${tile/,/x}.ptx"
  done
  for stages in 3 4; do
    build/bin/fkc "$case" --stages="$stages" -o "$artifacts/flash_stages_$stages.ptx"
  done
  build/bin/fkc bench/runtime_sizes/decode_attention.graph -o "$artifacts/decode_kernel.ptx"
  git rev-parse --short HEAD > "$artifacts/COMMIT" 2>/dev/null || echo unknown > "$artifacts/COMMIT"
  echo "decode_variants: artifacts in $artifacts" ;;
run)
  fkc_run=$2 out=$3
  mkdir -p "$out"
  {
    echo "# $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader), fkc $(cat "$artifacts/COMMIT")"
    echo "# median ms per run of attention_decode_512 (B 8, H 32, 512 keys, D 128, f16)"
    for ptx in "$artifacts"/flash_*.ptx; do
      echo "$(basename "$ptx" .ptx): $("$fkc_run" "$ptx" --bench --iterations 500 --warmup 50 | grep -o 'median [0-9.]* ms')"
    done
    echo "decode_kernel (B=8, S=512 at run time): $("$fkc_run" "$artifacts/decode_kernel.ptx" --graph decode_attention --sizes B=8,S=512 --bench --iterations 500 --warmup 50 | grep -o 'median [0-9.]* ms')"
    python3 - <<'PY'
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

gen = torch.Generator(device="cuda").manual_seed(0)
q = torch.randn(8, 32, 1, 128, device="cuda", dtype=torch.half, generator=gen)
k = torch.randn(8, 32, 512, 128, device="cuda", dtype=torch.half, generator=gen)
v = torch.randn_like(k)
for backend in (SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION):
    with sdpa_kernel(backend):
        for _ in range(50):
            F.scaled_dot_product_attention(q, k, v)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(20):
                F.scaled_dot_product_attention(q, k, v)
        times = []
        for _ in range(30):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            graph.replay()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end) / 20)
        times.sort()
        print(f"SDPA {backend.name}: median {times[len(times) // 2]:.4f} ms")
PY
  } | tee "$out/decode-variants.txt" ;;
*)
  echo "usage: run.sh compile | run FKC_RUN OUT" >&2; exit 2 ;;
esac
