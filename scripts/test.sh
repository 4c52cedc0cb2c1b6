#!/usr/bin/env bash
# Builds what is out of date and runs the whole test suite (lit: dialect,
# front end, interpreter, tools, examples, runtime host tests, fuzzers; then
# pytest: the importer, python/tests, in .venv, against this build's fkc,
# unless FKC_IMPORTER_TESTS=0).
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
echo "${FKC_TEST_LABEL:-lit}: ${passed:-0} passed, ${failed:-0} failed"
# The importer's tests fail (not skip) without .venv or torch: setup.sh makes them.
# FKC_IMPORTER_TESTS=0 leaves them out (test-sanitizers.sh).
py_passed=0 py_failed=0 py_errors=0
if [ "${FKC_IMPORTER_TESTS:-1}" != 0 ]; then
  python=.venv/bin/python
  [ -x "$python" ] || python=python3
  FKC="$PWD/$build/bin/fkc" "$python" -m pytest -q -p no:cacheprovider python/tests 2>&1 \
    | tee "$log" || status=$?
  count() { tail -n1 "$log" | grep -o "[0-9]* $1" | grep -o "[0-9]*" || true; }
  py_passed=$(count passed)
  py_failed=$(count failed)
  py_errors=$(count error)
else
  echo "${FKC_TEST_LABEL:-lit}: importer tests left out (FKC_IMPORTER_TESTS=0)"
fi
rm -f "$log"
total_passed=$((${passed:-0} + ${py_passed:-0}))
total_failed=$((${failed:-0} + ${py_failed:-0} + ${py_errors:-0}))
if [ "$status" -ne 0 ] && [ "$total_failed" -eq 0 ]; then total_failed=1; fi
summary="${FKC_TEST_LABEL:-lit} + importer"
[ "${FKC_IMPORTER_TESTS:-1}" != 0 ] || summary="${FKC_TEST_LABEL:-lit}"
echo "$summary: ${total_passed} passed, ${total_failed} failed"
exit "$status"
