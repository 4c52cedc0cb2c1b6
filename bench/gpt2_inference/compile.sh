#!/usr/bin/env bash
# GPT-2 small inference (prefill and decode step over in-place KV caches):
# writes the graphs with scripts/gpt2_inference_graph.py and compiles them
# into build/gpt2-artifacts/, for bench/gpt2_inference/run.py on a GPU.
#
#   bash bench/gpt2_inference/compile.sh [FKC]
#
# One artifact per (batch, prompt length): each holds the prefill graph of
# that prompt and the decode-step graph. And one per prompt length whose
# batch B (at most 16) is sized at run time (gpt2_bB_pT.ptx), which run.py
# times at each batch beside that batch's own artifact. And one whose batch
# and prompt length S (1 to 1024) are both sized at run time
# (gpt2_bB_pS.ptx), which run.py times at every configuration.
# FKC_GPT2_VARIANT_FLAGS, if set, compiles a second artifact of each
# with those fkc flags (NAME_variant.ptx), which run.py times beside the
# first (e.g. "--matmul-tile=64,64,64" to compare tiles).
set -euo pipefail
cd "$(dirname "$0")/../.."
fkc=${1:-build/bin/fkc}
out=build/gpt2-artifacts
mkdir -p "$out"
configs=("1 128" "16 128" "1 1024" "4 77")
for config in "${configs[@]}"; do
  read -r batch prompt <<<"$config"
  name=gpt2_b${batch}_p${prompt}
  python3 scripts/gpt2_inference_graph.py --batch "$batch" --prompt "$prompt" \
    --out "$out/$name.graph"
  "$fkc" "$out/$name.graph" -o "$out/$name.ptx"
  if [ -n "${FKC_GPT2_VARIANT_FLAGS:-}" ]; then
    # shellcheck disable=SC2086
    "$fkc" "$out/$name.graph" $FKC_GPT2_VARIANT_FLAGS -o "$out/${name}_variant.ptx"
  else
    rm -f "$out/${name}_variant.ptx"
  fi
done
# The batch sized at run time, for the prompt lengths above.
for prompt in 128; do
  name=gpt2_bB_p${prompt}
  python3 scripts/gpt2_inference_graph.py --batch B --max-batch 16 \
    --prompt "$prompt" --out "$out/$name.graph"
  "$fkc" "$out/$name.graph" -o "$out/$name.ptx"
done
# The batch and the prompt length sized at run time.
python3 scripts/gpt2_inference_graph.py --batch B --max-batch 16 --prompt S \
  --out "$out/gpt2_bB_pS.graph"
"$fkc" "$out/gpt2_bB_pS.graph" -o "$out/gpt2_bB_pS.ptx"
git rev-parse --short HEAD > "$out/COMMIT" 2>/dev/null || echo unknown > "$out/COMMIT"
echo "gpt2_inference: compiled ${#configs[@]} configurations into $out"
