#!/usr/bin/env bash
# Builds what is out of date and runs the whole test suite (lit: dialect,
# front end, interpreter, tools, examples, runtime host tests, fuzzers).
# FKC_FUZZ_SECONDS bounds each fuzzer's run (default 60); FKC_BUILD_DIR
# names the build (default build); FKC_TEST_LABEL starts the summary line.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${FKC_BUILD_DIR:-build}
[ -f "$build/build.ninja" ] || { echo "test: no build in $build; run scripts/setup.sh first" >&2; exit 1; }
ninja -C "$build" -j"$(nproc)"
log=$(mktemp)
status=0
/usr/lib/llvm-22/bin/lit -sv "$build/test" 2>&1 | tee "$log" || status=$?
passed=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' "$log" | tail -n1)
failed=$(sed -n 's/^ *Failed *: *\([0-9]*\).*/\1/p' "$log" | tail -n1)
rm -f "$log"
echo "${FKC_TEST_LABEL:-lit}: ${passed:-0} passed, ${failed:-0} failed"
exit "$status"
