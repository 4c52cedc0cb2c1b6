#!/usr/bin/env bash
# Builds the compiler with AddressSanitizer and UndefinedBehaviorSanitizer
# into its own folder and runs the lit suite on that build, so that a
# memory error or undefined behaviour anywhere the tests reach fails the
# run. The runtime (configured before the compiler) is not instrumented:
# Python loads it, and Python is not.
#
# FKC_SANITIZER_BUILD_DIR names the folder (default build-sanitizers);
# FKC_FUZZ_SECONDS and FKC_RANDOM_SECONDS bound the fuzzer and the random
# graphs as in scripts/test.sh (default 10 s each here).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${FKC_SANITIZER_BUILD_DIR:-build-sanitizers}
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S . -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_USE_SANITIZER="Address;Undefined" \
    -DFKC_BUILD_FUZZER=OFF
fi
# libMLIR.so is not instrumented but shares LLVM's bump allocators with our
# code, whose inlined allocator poisons slabs that the library then fills:
# user poisoning off keeps ASan's own checks and drops those false reports.
export ASAN_OPTIONS=${ASAN_OPTIONS:-allow_user_poisoning=0}
export FKC_FUZZ_SECONDS=${FKC_FUZZ_SECONDS:-10}
export FKC_RANDOM_SECONDS=${FKC_RANDOM_SECONDS:-10}
# What the sanitizers add nothing to runs once, in scripts/test.sh: the
# importer's tests (torch's export and the importer, in Python, which is
# not instrumented; graphs the importer writes are in the lit suite,
# test/Codegen/imported-*.graph) and the runtime's wheel (pip). Under the
# sanitizers they took 5.7 of CI's 40 minutes.
export FKC_IMPORTER_TESTS=${FKC_IMPORTER_TESTS:-0}
export LIT_FILTER_OUT=${LIT_FILTER_OUT:-runtime/pip-install.test}
FKC_BUILD_DIR=$build FKC_TEST_LABEL="lit (ASan+UBSan)" exec bash scripts/test.sh
