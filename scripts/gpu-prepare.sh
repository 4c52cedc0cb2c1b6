#!/usr/bin/env bash
# Compiles every example and every valid test graph for the GPU check:
# build/gpu-artifacts/NAME.ptx (the artifact) and NAME.fkt (its inputs and
# reference outputs for a fresh seed), and runs ptxas on each artifact.
# A fresh batch of random graphs (scripts/random_graphs.py, seeds from the
# same seed; FKC_GPU_RANDOM_COUNT of them, 32 by default, every fourth with
# tensor-core shapes) is compiled the same way, as random_g<SEED>.ptx/.fkt,
# with their sources in build/gpu-artifacts/random-graphs/. A bundle over
# FKC_GPU_MAX_BUNDLE_BYTES (16 MB) is dropped: that artifact is checked on
# random inputs. FKC_GPU_GRAPHS (graph paths, separated by spaces) narrows
# the examples and tests to those graphs, for a quick check of a change.
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
random_count=${FKC_GPU_RANDOM_COUNT:-32}
max_bundle_bytes=${FKC_GPU_MAX_BUNDLE_BYTES:-16000000}

rm -rf "$out" && mkdir -p "$out"
echo "gpu-prepare: seed $seed" | tee "$out/SEED"
compiled=0 failed=0 skipped=0

# check_ptx GRAPH NAME: ptxas on NAME.ptx (for its own target); logs to
# NAME.log.
check_ptx() {
  local graph=$1 name=$2 arch
  arch=$(sed -n 's/^\.target \([a-z0-9_]*\).*/\1/p' "$out/$name.ptx" | head -1)
  if [[ -x $ptxas ]] && ! "$ptxas" -arch="$arch" "$out/$name.ptx" -o /dev/null \
       2>> "$out/$name.log"; then
    echo "FAIL  $graph (ptxas)"; failed=$((failed + 1)); return 1
  fi
}

# compile GRAPH NAME: NAME.ptx and NAME.fkt, through ptxas.
compile() {
  local graph=$1 name=$2
  if ! "$fkc" "$graph" -o "$out/$name.ptx" --reference "$out/$name.fkt" \
       --seed "$seed" "${@:3}" 2> "$out/$name.log"; then
    echo "FAIL  $graph (fkc)"; sed 's/^/      /' "$out/$name.log" | head -5
    failed=$((failed + 1)); rm -f "$out/$name.ptx" "$out/$name.fkt"; return
  fi
  check_ptx "$graph" "$name" || return
  rm -f "$out/$name.log"
  # A bundle holds the graph's inputs, weights included: one of a real
  # model's size would not fit what goes to the GPU machine, whose check
  # then runs the artifact on random inputs (replays compared, sanitizers).
  if [[ $(stat -c %s "$out/$name.fkt") -gt $max_bundle_bytes ]]; then
    echo "NOTE  $graph: its bundle is over $max_bundle_bytes bytes; checked on random inputs only"
    rm -f "$out/$name.fkt"
  fi
  compiled=$((compiled + 1))
}

# compile_sized GRAPH NAME SIZES FLAGS...: one artifact compiled for sizes
# given at run time, NAME_sK.ptx a copy of it and NAME_sK.fkt the reference
# at the K-th of SIZES (a space-separated list of --bind values).
compile_sized() {
  local graph=$1 name=$2 k
  local -a sets
  read -ra sets <<<"$3"
  if ! "$fkc" "$graph" -o "$out/$name.ptx" "${@:4}" 2> "$out/$name.log"; then
    echo "FAIL  $graph (fkc, sizes at run time)"; sed 's/^/      /' "$out/$name.log" | head -5
    failed=$((failed + 1)); return
  fi
  check_ptx "$graph" "$name" || return
  for k in "${!sets[@]}"; do
    if ! "$fkc" "$graph" --bind "${sets[$k]}" --emit=graph --reference "$out/${name}_s$k.fkt" \
         --seed "$seed" "${@:4}" > /dev/null 2>> "$out/$name.log"; then
      echo "FAIL  $graph (reference at ${sets[$k]})"; failed=$((failed + 1)); continue
    fi
    cp "$out/$name.ptx" "$out/${name}_s$k.ptx"
    compiled=$((compiled + 1))
  done
  rm -f "$out/$name.ptx" "$out/$name.log"
}

graphs=${FKC_GPU_GRAPHS:-$(echo examples/*.graph; find test -name '*.graph' | sort)}
for graph in $graphs; do
  # Graphs that test diagnostics are not meant to compile, and known
  # failures (XFAIL) do not.
  if grep -qE 'expected-error|RUN: not|XFAIL:' "$graph"; then skipped=$((skipped + 1)); continue; fi
  # A graph with symbolic dimensions names the sizes it is checked at
  # (`# GPU-BIND: B=2,S=7`, given to --bind).
  bind=$(sed -n 's/^# GPU-BIND: //p' "$graph" | head -1)
  name=$(echo "${graph%.graph}" | tr '/' '_')
  # A graph compiled for sizes given at run time names the sizes its one
  # artifact is checked at (`# GPU-SIZES: S=7,B=2 S=0,B=1`): NAME_sK.ptx is
  # that artifact and NAME_sK.fkt the reference at the K-th sizes.
  sizes=$(sed -n 's/^# GPU-SIZES: //p' "$graph" | head -1)
  # A graph may name fkc flags it is checked with (`# GPU-FLAGS: ...`),
  # one artifact per such line: the first is NAME, the n-th NAME_fn (the
  # same graphs for another target, say).
  mapfile -t flag_sets < <(sed -n 's/^# GPU-FLAGS: *//p' "$graph")
  [[ ${#flag_sets[@]} -eq 0 ]] && flag_sets=("")
  for i in "${!flag_sets[@]}"; do
    read -ra flags <<<"${flag_sets[$i]}"
    suffix=; [[ $i -gt 0 ]] && suffix=_f$((i + 1))
    if [[ -n $sizes ]]; then
      compile_sized "$graph" "$name$suffix" "$sizes" "${flags[@]}" "$@"
    else
      compile "$graph" "$name$suffix" ${bind:+--bind "$bind"} "${flags[@]}" "$@"
    fi
  done
done

# The random batch: seeds seed*1000, seed*1000+1, ... so that every run
# checks graphs no run checked before.
random_dir=$out/random-graphs
first=$((seed * 1000))
if [[ $random_count -gt 0 ]] &&
   python3 scripts/random_graphs.py generate --seed "$first" --count "$random_count" \
     --large-every 4 --out "$random_dir"; then
  echo "gpu-prepare: random graphs g$first..g$((first + random_count - 1)) (scripts/random_graphs.py generate --seed S)" | tee -a "$out/SEED"
  for graph in "$random_dir"/*.graph; do
    compile "$graph" "random_$(basename "${graph%.graph}")" "$@"
  done
elif [[ $random_count -gt 0 ]]; then
  echo "FAIL  scripts/random_graphs.py generate"; failed=$((failed + 1))
fi
echo "gpu-prepare: $compiled compiled, $failed failed, $skipped diagnostic tests and known failures skipped -> $out ($(du -sh "$out" | cut -f1))"
[[ $failed == 0 ]]
