#!/usr/bin/env bash
# Compiles every benchmark case (bench/cases/NAME.graph) to an fkc artifact,
# build/bench-artifacts/NAME.ptx, and checks each with ptxas when it is
# installed. Runs on the development machine; bench/run.py runs the artifacts
# on a GPU machine.
#
#   bash bench/compile.sh [FKC_OPTION...]      e.g. --target=sm_90a
#
# Options are passed to every fkc call, after those a case's graph names on
# a `# FKC-OPTIONS:` line (--allow-tf32 for gemm_tf32_4096). Environment:
#   FKC            the compiler (default build/bin/fkc)
#   BENCH_OUT      the artifact folder (default build/bench-artifacts)
#   BENCH_CASES    case names to compile, separated by spaces (default all)
#   PTXAS          ptxas to use (default: on PATH, else /usr/local/cuda/bin)
#   PTXAS_ARCH     -arch for ptxas (default: the artifact's .target, else sm_90)
#
# A failing case is reported and the others still compile; the exit status
# is 1 if any case failed. The folder also gets FKC_OPTIONS (the options
# given), COMMIT (the commit compiled,
# for run.py's report) and status.tsv (each case: fkc and ptxas results).
set -uo pipefail
cd "$(dirname "$0")/.."

fkc=${FKC:-build/bin/fkc}
out=${BENCH_OUT:-build/bench-artifacts}
if [ ! -x "$fkc" ]; then
  echo "compile: no fkc at $fkc (build it with scripts/setup.sh, or set FKC)" >&2
  exit 1
fi
mkdir -p "$out"

ptxas=${PTXAS:-$(command -v ptxas || true)}
[ -z "$ptxas" ] && [ -x /usr/local/cuda/bin/ptxas ] && ptxas=/usr/local/cuda/bin/ptxas

if [ -n "${BENCH_CASES:-}" ]; then
  cases=()
  for c in $BENCH_CASES; do cases+=("bench/cases/$c.graph"); done
else
  cases=(bench/cases/*.graph)
fi

commit=unknown
if git rev-parse --git-dir >/dev/null 2>&1; then
  commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
  # Local changes to tracked files make the artifacts differ from the commit.
  if ! git diff --quiet HEAD -- 2>/dev/null; then commit="$commit-dirty"; fi
fi
echo "$commit" > "$out/COMMIT"
# The fkc options every case was compiled with (run.py's report notes them).
printf '%s\n' "$*" > "$out/FKC_OPTIONS"
printf 'case\tfkc\tptxas\n' > "$out/status.tsv"

failed=0
ok=0
printf '%-24s %-11s %-7s %s\n' case fkc ptxas note
for graph in "${cases[@]}"; do
  name=$(basename "$graph" .graph)
  ptx="$out/$name.ptx"
  log="$out/$name.log"
  rm -f "$ptx" "$out/$name.cubin" "$out/$name.out"
  fkc_status=ok ptxas_status=- note=
  # A case may need options of its own (`# FKC-OPTIONS: --allow-tf32`).
  read -ra case_options <<<"$(sed -n 's/^# FKC-OPTIONS: *//p' "$graph" 2>/dev/null | head -n1)"
  if [ ! -f "$graph" ]; then
    fkc_status=missing note="no $graph"
  elif ! "$fkc" "$graph" -o "$ptx" "$@" "${case_options[@]}" >"$log" 2>&1; then
    fkc_status=failed note=$(grep -m1 -i 'error' "$log" || head -n1 "$log")
    rm -f "$ptx"
  elif ! head -c 4096 "$ptx" | grep -qx '// fkc-manifest-begin'; then
    # fkc wrote something that is not an artifact (an IR stage, say); keep
    # it for a look, under a name run.py does not take for an artifact.
    fkc_status=no-artifact note="fkc's output has no manifest: see $out/$name.out"
    mv "$ptx" "$out/$name.out"
  fi
  if [ "$fkc_status" = ok ]; then
    if [ -z "$ptxas" ]; then
      ptxas_status=absent
    else
      arch=${PTXAS_ARCH:-$(sed -n 's/^[[:space:]]*\.target[[:space:]]\+\(sm_[0-9]\+[a-z]\?\).*/\1/p' "$ptx" | head -n1)}
      arch=${arch:-sm_90}
      if "$ptxas" -arch="$arch" "$ptx" -o "$out/$name.cubin" >>"$log" 2>&1; then
        ptxas_status=ok
      else
        ptxas_status=failed
        note=$(grep -m1 -i 'error' "$log" || tail -n1 "$log")
      fi
    fi
  fi
  printf '%s\t%s\t%s\n' "$name" "$fkc_status" "$ptxas_status" >> "$out/status.tsv"
  printf '%-24s %-11s %-7s %s\n' "$name" "$fkc_status" "$ptxas_status" "${note:0:100}"
  if [ "$fkc_status" = ok ] && [ "$ptxas_status" != failed ]; then
    ok=$((ok + 1))
  else
    failed=$((failed + 1))
  fi
done
echo "compile: $ok ok, $failed failed; artifacts in $out (commit $commit)"
[ -z "$ptxas" ] && echo "compile: ptxas not found; artifacts were not assembled" >&2
[ "$failed" -eq 0 ]
