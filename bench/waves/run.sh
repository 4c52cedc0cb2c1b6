#!/usr/bin/env bash
# On the GPU machine, after bench/waves/compile.sh: each product's time by
# fkc-run --bench and cuBLAS's (torch.matmul, CUDA events), three
# alternated rounds (medians of 30 calls each).
#
#   bash bench/waves/run.sh [FKC_RUN]
set -u
cd "$(dirname "$0")/../.."
run=${1:-build/bin/fkc-run}
nvidia-smi --query-gpu=name --format=csv,noheader
for round in 1 2 3; do
  for m in 8192 8448; do
    for k in 4096 14336; do
      name=gemm_${m}x2048x${k}
      printf "round %s %s fkc: " $round $name
      timeout 60 "$run" build/waves/$name.ptx --bench --iterations 30 --warmup 10 2>&1 |
        grep -o "median [0-9.]* ms" | head -1
      printf "round %s %s cuBLAS: " $round $name
      python3 - $m $k <<'PY'
import sys, torch
m, k = int(sys.argv[1]), int(sys.argv[2])
a = torch.randn(m, k, device="cuda", dtype=torch.float16)
b = torch.randn(k, 2048, device="cuda", dtype=torch.float16)
for _ in range(10):
    a @ b
times = []
for _ in range(30):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record(); a @ b; e.record(); e.synchronize()
    times.append(s.elapsed_time(e))
times.sort()
print("median %.4f ms" % times[len(times) // 2])
PY
    done
  done
done
