#!/usr/bin/env bash
# AER of a model's attention (or of each reading, --every-reading) on the Hansards en-fr gold's dev
# half: its first 100 pairs (../shared/datasets/alignment-gold/enfr.*), through the app's own
# `attention-lens align` (argmax per target word, as the Alignment score tab reads it).
#   bash training/aer_dev.sh training/zoo-next/models/en-fr-luong-general-guided.onnx [--every-reading] [--half b]
# --half b: the other half (pairs 101-200). zh-en models: the Tsinghua gold (zhen.*) the same way.
set -euo pipefail
cd "$(dirname "$0")/.."
model=$1; shift
half=a; extra=()
while [ $# -gt 0 ]; do
  case "$1" in --half) half=$2; shift 2 ;; *) extra+=("$1"); shift ;; esac
done
gold_dir=${AL_DATASETS:-../shared/datasets}/alignment-gold
set_name=enfr; case "$(basename "$model")" in zh-en-*) set_name=zhen ;; esac
dev=training/alignments/dev; mkdir -p "$dev"
pick() { if [ "$half" = a ]; then head -100 "$1"; else tail -n +101 "$1"; fi; }
pick "$gold_dir/$set_name.src-tgt" > "$dev/$set_name-$half.src-tgt"
pick "$gold_dir/$set_name.gold" > "$dev/$set_name-$half.gold"
npx tsx src/cli/index.ts align --model "$model" --input "$dev/$set_name-$half.src-tgt" --gold "$dev/$set_name-$half.gold" "${extra[@]}" 2>&1 >/dev/null
