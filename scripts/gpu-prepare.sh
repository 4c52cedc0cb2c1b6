#!/usr/bin/env bash
# Compiles every example and every valid test graph for the GPU check:
# build/gpu-artifacts/NAME.ptx (the artifact) and NAME.fkt (its inputs and
# reference outputs for a fresh seed), and runs ptxas on each artifact.
# Then carry build/gpu-artifacts to the GPU machine and run
# scripts/gpu-check.sh there (see docs/tools.md).
#
#   bash scripts/gpu-prepare.sh [--seed N] [fkc options...]
set -uo pipefail
cd "$(dirname "$0")/.."

build=${FKC_BUILD_DIR:-build}
out=$build/gpu-artifacts
fkc=$build/bin/fkc
ptxas=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
seed=$(( $(date +%s) % 100000 ))
if [[ ${1:-} == --seed ]]; then seed=$2; shift 2; fi

rm -rf "$out" && mkdir -p "$out"
echo "gpu-prepare: seed $seed" | tee "$out/SEED"
compiled=0 failed=0 skipped=0
for graph in examples/*.graph $(find test -name '*.graph' | sort); do
  # Graphs that test diagnostics are not meant to compile.
  if grep -qE 'expected-error|RUN: not' "$graph"; then skipped=$((skipped + 1)); continue; fi
  name=$(echo "${graph%.graph}" | tr '/' '_')
  if ! "$fkc" "$graph" -o "$out/$name.ptx" --reference "$out/$name.fkt" \
       --seed "$seed" "$@" 2> "$out/$name.log"; then
    echo "FAIL  $graph (fkc)"; sed 's/^/      /' "$out/$name.log" | head -5
    failed=$((failed + 1)); rm -f "$out/$name.ptx" "$out/$name.fkt"; continue
  fi
  arch=$(sed -n 's/^\.target \([a-z0-9_]*\).*/\1/p' "$out/$name.ptx" | head -1)
  if [[ -x $ptxas ]] && ! "$ptxas" -arch="$arch" "$out/$name.ptx" -o /dev/null \
       2>> "$out/$name.log"; then
    echo "FAIL  $graph (ptxas)"; failed=$((failed + 1)); continue
  fi
  rm -f "$out/$name.log"
  compiled=$((compiled + 1))
done
echo "gpu-prepare: $compiled compiled, $failed failed, $skipped diagnostic tests skipped -> $out ($(du -sh "$out" | cut -f1))"
[[ $failed == 0 ]]
