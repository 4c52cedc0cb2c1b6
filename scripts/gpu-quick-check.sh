#!/usr/bin/env bash
# The GPU check's artifact step alone, for a short device session: runs every
# artifact of build/gpu-artifacts (scripts/gpu-prepare.sh) with fkc-run,
# checked against its bundle when it has one (and, by default, its CUDA
# graph replays compared with its first run), then the artifacts named by
# the patterns under compute-sanitizer's memcheck. scripts/gpu-check.sh is
# the whole check (runtime tests, sanitizers on every artifact, SASS).
#
#   bash scripts/gpu-quick-check.sh FKC_RUN [PATTERN...]   e.g. 'test_Codegen_*'
set -uo pipefail
fkc_run=$(realpath "${1:?usage: gpu-quick-check.sh FKC_RUN [PATTERN...]}"); shift
cd "$(dirname "$0")/../build/gpu-artifacts" || exit 1
sanitizer=${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer
ok=0 failed=0
run() { # run PTX [launcher...]: fkc-run on PTX with its bundle if any
  local ptx=$1; shift
  local bundle=${ptx%.ptx}.fkt args=()
  [ -f "$bundle" ] && args=(--check "$bundle")
  "$@" "$fkc_run" "$ptx" "${args[@]}"
}
for ptx in *.ptx; do
  if out=$(run "$ptx" 2>&1); then
    ok=$((ok + 1))
  else
    failed=$((failed + 1)); echo "FAIL  $ptx"; echo "$out" | grep -E "MISMATCH|error" | head -5
  fi
done
echo "gpu-quick-check: $ok artifacts ok, $failed failed"
for pattern in "$@"; do
  for ptx in $pattern.ptx; do
    [ -f "$ptx" ] || continue
    summary=$(run "$ptx" "$sanitizer" --tool memcheck --error-exitcode 86 2>&1 | grep "ERROR SUMMARY" | tail -1)
    echo "memcheck $ptx: ${summary:-no summary}"
    [[ $summary == *" 0 errors"* ]] || failed=$((failed + 1))
  done
done
[ "$failed" -eq 0 ]
