#!/usr/bin/env bash
# Installs what fkc needs on Debian 12, builds it, and compiles an example
# graph: the whole set-up in one command. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  cmake ninja-build clang-14 libclang-rt-14-dev python3 python3-venv
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools
  libcli11-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

build=${FKC_BUILD_DIR:-build}
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S . -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir
fi
ninja -C "$build" -j"$(nproc)"

# The importer (python/fkc) in .venv, with torch, transformers, safetensors and
# pytest for its tests, and the build backend of the runtime's pip package
# (scikit-build-core, runtime/pyproject.toml's build-system.requires), which
# test/runtime/pip-install.test builds the package with, offline; installed
# again only when either pyproject.toml changes.
[ -x .venv/bin/python ] || python3 -m venv .venv
if [ ! -f .venv/.fkc-installed ] || [ python/pyproject.toml -nt .venv/.fkc-installed ] \
    || [ runtime/pyproject.toml -nt .venv/.fkc-installed ]; then
  runtime_build_requires=$(.venv/bin/python -c 'import tomllib
print(*tomllib.load(open("runtime/pyproject.toml", "rb"))["build-system"]["requires"])')
  # shellcheck disable=SC2086 # one word per requirement
  .venv/bin/pip install -q --disable-pip-version-check torch transformers safetensors pytest \
    $runtime_build_requires
  .venv/bin/pip install -q --disable-pip-version-check -e ./python
  touch .venv/.fkc-installed
fi

# The main job: compile an example graph.
"$build/bin/fkc" examples/mlp.graph -o "$build/mlp.ptx"
echo "setup: built fkc; compiled examples/mlp.graph to $build/mlp.ptx"
