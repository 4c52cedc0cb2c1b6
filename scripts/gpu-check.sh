#!/usr/bin/env bash
# The checks that need a GPU, in one script for the GPU machine (CUDA driver
# and toolkit, CMake, Ninja, g++, Python; no MLIR). Run from the repository
# root, with the compiler's artifacts in build/gpu-artifacts/:
#
#   1. builds the runtime, fkc-run and the runtime's tests without the
#      compiler into build-device/;
#   2. runs the runtime's host and GPU tests (with --oom: one takes all the
#      device's free memory), and fkc-run's unit tests; then the GPU tests'
#      load and failure tests (--load-only) under compute-sanitizer's
#      memcheck and racecheck;
#   3. checks fkc-run itself on runtime/tests/data/add.ptx against bundles
#      that are right and wrong (written by test/runtime/Inputs/make_bundle.py)
#      and on inputs from a .safetensors file (test/Inputs/safetensors.py);
#   4. for every build/gpu-artifacts/X.ptx, for each of its graphs:
#      `fkc-run X.ptx --graph G --check X.fkt` (with random inputs when there
#      is no X.fkt), then the same under compute-sanitizer's memcheck (and
#      racecheck with --racecheck);
#   5. installs the runtime, builds examples/embed against it and runs it;
#   6. runs the Python binding's tests (runtime/python/test_fkrt.py);
#   7. counts the tensor-core and load instructions in the artifacts' SASS
#      with scripts/sass-summary.sh (for information: not a check).
#
# Every step runs even when an earlier one failed (except what needs the
# build); a table of the results ends the output, a JSON summary goes to
# $OUT/gpu-check.json when OUT is set (with the end of the log of every
# failure) and sass-summary.sh's counts to $OUT/sass-summary.json, and the
# exit status is non-zero if anything failed. Without OUT
# the logs of every step are kept in a directory named at the end.
#
# compute-sanitizer runs with --error-exitcode 86, not 1, so that its
# findings are told apart from fkc-run's own failures (exit status 1, such
# as a mismatch, which the check column reports).
#
# Usage: bash scripts/gpu-check.sh [--racecheck] [--artifacts DIR]
#                                  [--build-dir DIR (default build-device)]
set -u
cd "$(dirname "$0")/.." || exit 2

artifacts_dir=build/gpu-artifacts
build="build-device"
racecheck=0
while [ $# -gt 0 ]; do
  case $1 in
    --racecheck) racecheck=1 ;;
    --artifacts) shift; artifacts_dir=${1:?--artifacts needs a directory} ;;
    --build-dir) shift; build=${1:?--build-dir needs a directory} ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) echo "gpu-check: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done

out=${OUT:-}
work=$(mktemp -d /tmp/gpu-check.XXXXXX) || exit 2
trap 'rm -rf "$work"' EXIT
if [ -n "$out" ]; then
  mkdir -p "$out" || exit 2
  logs=$work/logs
  mkdir "$logs" || exit 2
else
  logs=$(mktemp -d /tmp/gpu-check-logs.XXXXXX) || exit 2
fi

steps_tsv=$work/steps.tsv    # step, status, log
graphs_tsv=$work/graphs.tsv  # artifact, graph, check, memcheck, racecheck, logs
: >"$steps_tsv"
: >"$graphs_tsv"
failures=0

section() { printf '\n=== %s ===\n' "$*"; }

# The last lines of a failed step's log, indented.
show_log() { tail -n "${2:-25}" "$1" | sed 's/^/    | /'; }

# record STEP STATUS LOG: one row of the steps table; $last is the status.
last=PASS
record() {
  printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$steps_tsv"
  last=$2
  [ "$2" = PASS ] || failures=$((failures + 1))
  printf '%-44s %s\n' "$1" "$2"
}

# The log file of step NAME.
log_of() { printf '%s/%s.log' "$logs" "$(printf '%s' "$1" | tr -c 'A-Za-z0-9._-' '_')"; }

# step NAME CMD...: runs CMD with its output in a log; PASS if it succeeds.
step() {
  local name=$1 log
  shift
  log=$(log_of "$name")
  echo "+ $*" >"$log"
  if "$@" >>"$log" 2>&1; then
    record "$name" PASS "$log"
  else
    record "$name" "FAIL (exit $?)" "$log"
    show_log "$log"
  fi
}

# expect NAME STATUS PATTERN CMD...: runs CMD; PASS if it exits with STATUS
# and its output matches the extended regular expression PATTERN.
expect() {
  local name=$1 want=$2 pattern=$3 log rc
  shift 3
  log=$(log_of "$name")
  echo "+ $*" >"$log"
  "$@" >>"$log" 2>&1
  rc=$?
  if [ "$rc" -eq "$want" ] && grep -Eq -- "$pattern" "$log"; then
    record "$name" PASS "$log"
  else
    record "$name" "FAIL (exit $rc, expected $want and /$pattern/)" "$log"
    show_log "$log"
  fi
}

fkc_run=$build/bin/fkc-run
sanitizer_error=86

# sanitize TOOL LOG CMD...: runs CMD under compute-sanitizer's TOOL; prints
# "ok" unless the tool reported errors or the program crashed. fkc-run's own
# failures (exit status 1) are the check column's business.
sanitize() {
  local tool=$1 log=$2 rc
  shift 2
  local extra=()
  [ "$tool" = memcheck ] && extra=(--leak-check full)
  "$sanitizer" --tool "$tool" ${extra[@]+"${extra[@]}"} --error-exitcode "$sanitizer_error" "$@" >"$log" 2>&1
  rc=$?
  if [ "$rc" -eq "$sanitizer_error" ]; then
    echo "FAIL (errors)"
  elif [ "$rc" -gt 1 ]; then
    echo "FAIL (exit $rc)"
  elif ! grep -Eq "(ERROR|RACECHECK) SUMMARY: 0 (errors|hazards)" "$log"; then
    echo "FAIL (no summary)"
  else
    echo ok
  fi
}
sanitizer=$(command -v compute-sanitizer)
for candidate in "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer" \
                 "${CUDA_HOME:-/usr/local/cuda}/compute-sanitizer/compute-sanitizer"; do
  [ -n "$sanitizer" ] || { [ -x "$candidate" ] && sanitizer=$candidate; }
done

section "Machine"
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader 2>&1 || true
device_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)
echo "compute-sanitizer: ${sanitizer:-not found}"
[ -n "$sanitizer" ] || record "compute-sanitizer present" "FAIL (not found)" "-"

section "Build (runtime, fkc-run, tests; no compiler)"
built=0
step "configure $build" cmake -S . -B "$build" -G Ninja -DFKC_BUILD_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release
if [ "$last" = PASS ]; then
  step "build $build" ninja -C "$build"
  [ "$last" = PASS ] && built=1
fi

if [ "$built" -eq 1 ]; then
  section "Runtime tests"
  step "fkrt-host-tests" "$build/runtime/fkrt-host-tests"
  step "fkrt-bundle-tests" "$build/runtime/fkrt-bundle-tests"
  step "fkrt-safetensors-tests" "$build/runtime/fkrt-safetensors-tests"
  step "fkrt-weight-binding-tests" "$build/runtime/fkrt-weight-binding-tests"
  step "fkrt-launch-dependencies-tests" "$build/runtime/fkrt-launch-dependencies-tests"
  step "fkc-run-tests" "$build/tools/fkc-run/fkc-run-tests"
  # Without a driver they pass vacuously ("0 passed"): here that fails.
  expect "fkrt-gpu-tests" 0 "^[1-9][0-9]* passed, 0 failed" "$build/runtime/fkrt-gpu-tests" --oom runtime/tests/data
  # Threads, modules and streams at once, and runs failing midway, under the
  # sanitizer; the launch failing on purpose is not an API error to report.
  if [ -n "$sanitizer" ]; then
    expect "fkrt-gpu-tests --load-only: memcheck" 0 "^[1-9][0-9]* passed, 0 failed" "$sanitizer" --tool memcheck --leak-check full --report-api-errors no --error-exitcode "$sanitizer_error" "$build/runtime/fkrt-gpu-tests" --load-only runtime/tests/data
    expect "fkrt-gpu-tests --load-only: racecheck" 0 "^[1-9][0-9]* passed, 0 failed" "$sanitizer" --tool racecheck --report-api-errors no --error-exitcode "$sanitizer_error" "$build/runtime/fkrt-gpu-tests" --load-only runtime/tests/data
  fi

  section "fkc-run on runtime/tests/data/add.ptx"
  add=runtime/tests/data/add.ptx
  for kind in add add-wrong add-nan; do
    python3 test/runtime/Inputs/make_bundle.py "$kind" "$work/$kind.fkt" ||
      record "make_bundle.py $kind" FAIL "-"
  done
  expect "fkc-run add: random inputs" 0 "output y f32\[1000\]: min .* nan 0 inf 0" "$fkc_run" "$add" --seed 3
  expect "fkc-run add: --check right bundle" 0 "check  y: ok" "$fkc_run" "$add" --check "$work/add.fkt"
  expect "fkc-run add: --check wrong value" 1 "check  y: MISMATCH .*largest at \[17\]" "$fkc_run" "$add" --check "$work/add-wrong.fkt"
  expect "fkc-run add: --check NaN expected" 1 "NaN/Inf differ at 1 positions, first at \[5\]" "$fkc_run" "$add" --check "$work/add-nan.fkt"
  expect "fkc-run add: --bench" 0 "bench: 50 runs after 5 warm-up: median [0-9.]+ ms" "$fkc_run" "$add" --check "$work/add.fkt" --bench --iterations 50 --warmup 5
  python3 test/Inputs/safetensors.py write "$work/add.safetensors" x:F32:1000 w:F32:1000 ||
    record "safetensors.py write" FAIL "-"
  expect "fkc-run add: --inputs/--outputs .safetensors" 0 "outputs written to" "$fkc_run" "$add" --inputs "$work/add.safetensors" --outputs "$work/add-y.safetensors"
  expect "fkc-run add: --outputs by name" 0 "^y F32\[1000\] at \[0, 4000\): -4.5, -3, -1.5, 0, 1.5, 3, 4.5," python3 test/Inputs/safetensors.py dump "$work/add-y.safetensors"
  expect "fkc-run add: no such device" 1 "device 999: cuDeviceGet failed" "$fkc_run" "$add" --device 999
  if [ -n "$sanitizer" ]; then
    expect "fkc-run add: memcheck" 0 "ERROR SUMMARY: 0 errors" "$sanitizer" --tool memcheck --leak-check full --error-exitcode "$sanitizer_error" "$fkc_run" "$add" --check "$work/add.fkt"
  fi

  section "Artifacts in $artifacts_dir"
  shopt -s nullglob
  ptx_files=("$artifacts_dir"/*.ptx)
  shopt -u nullglob
  [ ${#ptx_files[@]} -gt 0 ] || echo "(no artifacts)"
  for ptx in "${ptx_files[@]}"; do
    name=$(basename "$ptx" .ptx)
    bundle=${ptx%.ptx}.fkt
    check_args=()
    [ -f "$bundle" ] && check_args=(--check "$bundle")
    if ! "$fkc_run" --list "$ptx" >"$work/graphs" 2>"$logs/$name.list.check.log"; then
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "-" "FAIL (load)" "-" "-" "$logs/$name.list" >>"$graphs_tsv"
      failures=$((failures + 1))
      echo "$name: cannot be loaded"
      show_log "$logs/$name.list.check.log"
      continue
    fi
    while IFS= read -r graph; do
      log=$(log_of "$name.$graph")
      log=${log%.log}
      if "$fkc_run" "$ptx" --graph "$graph" ${check_args[@]+"${check_args[@]}"} >"$log.check.log" 2>&1; then
        check=$([ -f "$bundle" ] && echo ok || echo "ran (no .fkt)")
      else
        rc=$?
        check=$(grep -q MISMATCH "$log.check.log" && echo MISMATCH || echo "FAIL (exit $rc)")
        failures=$((failures + 1))
      fi
      memcheck=-
      racecheck_status=-
      if [ -z "$sanitizer" ]; then
        memcheck="n/a (no compute-sanitizer)" # counted once, above
      else
        memcheck=$(sanitize memcheck "$log.memcheck.log" \
          "$fkc_run" "$ptx" --graph "$graph" ${check_args[@]+"${check_args[@]}"})
        [ "$memcheck" = ok ] || failures=$((failures + 1))
        if [ "$racecheck" -eq 1 ]; then
          racecheck_status=$(sanitize racecheck "$log.racecheck.log" \
            "$fkc_run" "$ptx" --graph "$graph" ${check_args[@]+"${check_args[@]}"})
          [ "$racecheck_status" = ok ] || failures=$((failures + 1))
        fi
      fi
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$graph" "$check" "$memcheck" "$racecheck_status" "$log" >>"$graphs_tsv"
      printf '%-24s %-20s check %-16s memcheck %-12s racecheck %s\n' "$name" "$graph" "$check" "$memcheck" "$racecheck_status"
      [ "$check" = ok ] || [ "$check" = "ran (no .fkt)" ] || show_log "$log.check.log"
      [ "${memcheck#FAIL}" = "$memcheck" ] || show_log "$log.memcheck.log" 40
      [ "${racecheck_status#FAIL}" = "$racecheck_status" ] || show_log "$log.racecheck.log" 40
    done <"$work/graphs"
  done

  section "examples/embed against an installed runtime"
  prefix=$work/prefix
  embed_build=$work/embed
  embed_artifact=runtime/tests/data/add.ptx
  [ -f "$artifacts_dir/examples_mlp.ptx" ] && embed_artifact=$artifacts_dir/examples_mlp.ptx
  step "install runtime (component fkrt)" cmake --install "$build" --component fkrt --prefix "$prefix"
  step "configure examples/embed" cmake -S examples/embed -B "$embed_build" -G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=$prefix"
  step "build examples/embed" cmake --build "$embed_build"
  expect "run fkrt-embed $(basename "$embed_artifact")" 0 "^output " "$embed_build/fkrt-embed" "$embed_artifact"
  [ "$last" != PASS ] || sed 's/^/    /' "$(log_of "run fkrt-embed $(basename "$embed_artifact")")"
  expect "installed fkc-run" 0 "check  y: ok" "$prefix/bin/fkc-run" runtime/tests/data/add.ptx --check "$work/add.fkt"

  section "Python binding"
  if [ -f runtime/python/test_fkrt.py ]; then
    step "python3 runtime/python/test_fkrt.py" env "FKRT_LIBRARY=$PWD/$build/runtime/libfkrt.so" python3 runtime/python/test_fkrt.py
  else
    echo "(runtime/python/test_fkrt.py absent)"
  fi
fi

section "SASS of the artifacts (scripts/sass-summary.sh; not a check)"
shopt -s nullglob
sass_ptx=("$artifacts_dir"/*.ptx)
shopt -u nullglob
sass_args=()
[ -n "$out" ] && sass_args=(--json "$out/sass-summary.json")
if [ ${#sass_ptx[@]} -gt 0 ]; then
  bash scripts/sass-summary.sh ${sass_args[@]+"${sass_args[@]}"} "${sass_ptx[@]}" ||
    echo "(sass-summary.sh exited with status $?; not counted as a failure)"
else
  echo "(no artifacts)"
fi

section "Summary"
printf '%-44s %s\n' STEP STATUS
cut -f1,2 "$steps_tsv" | while IFS=$'\t' read -r s st; do printf '%-44s %s\n' "$s" "$st"; done
echo
printf '%-24s %-20s %-18s %-14s %s\n' ARTIFACT GRAPH CHECK MEMCHECK RACECHECK
while IFS=$'\t' read -r a g c m r _; do
  printf '%-24s %-20s %-18s %-14s %s\n' "$a" "$g" "$c" "$m" "$r"
done <"$graphs_tsv"
[ -s "$graphs_tsv" ] || echo "(no artifact graphs checked)"

if [ -n "$out" ]; then
  python3 - "$steps_tsv" "$graphs_tsv" "$out/gpu-check.json" "$failures" "${device_name:-}" <<'EOF' || failures=$((failures + 1))
import json, sys
steps_tsv, graphs_tsv, path, failures, device = sys.argv[1:6]


def rows(p):
    with open(p) as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip()]


def tail(log, lines=40):
    try:
        with open(log, errors="replace") as f:
            return f.read().splitlines()[-lines:]
    except OSError:
        return []


steps = []
for name, status, log in rows(steps_tsv):
    steps.append({"step": name, "status": status})
    if status != "PASS":
        steps[-1]["log_tail"] = tail(log)
graphs = []
for artifact, graph, check, memcheck, racecheck, log in rows(graphs_tsv):
    row = {"artifact": artifact, "graph": graph, "check": check,
           "memcheck": memcheck, "racecheck": racecheck}
    for key in ("check", "memcheck", "racecheck"):
        if row[key].startswith("FAIL") or row[key] == "MISMATCH":
            row[key + "_log_tail"] = tail("%s.%s.log" % (log, key))
    graphs.append(row)
summary = {"ok": int(failures) == 0, "failures": int(failures),
           "device": device, "steps": steps, "graphs": graphs}
with open(path, "w") as f:
    json.dump(summary, f, indent=2)
    f.write("\n")
EOF
  echo "summary written to $out/gpu-check.json"
else
  echo "logs in $logs"
fi

if [ "$failures" -ne 0 ]; then
  echo "gpu-check: $failures FAILED"
  exit 1
fi
echo "gpu-check: all passed"
