#!/usr/bin/env bash
# Rebuilds the whole model zoo into training/zoo-next/: trains, evaluates and exports every model,
# two at a time (one CPU core each; training/logs/parallel can lower that), then the tiny test
# fixture models. Deterministic: same seeds, one thread, batches seeded per epoch.
#   bash training/build_zoo.sh                       # everything, from scratch
#   bash training/build_zoo.sh --resume              # continue from training/checkpoints/
#   bash training/build_zoo.sh [--resume] en-fr:none ...   # just the named models
set -euo pipefail
cd "$(dirname "$0")/.."
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
resume=0
if [ "${1:-}" = --resume ]; then resume=1; shift; fi
mkdir -p training/logs
models=("$@")
if [ ${#models[@]} -eq 0 ]; then
  models=(en-fr:luong-general en-fr:local-p en-fr:bahdanau en-fr:local-m en-fr:luong-dot en-fr:luong-concat en-fr:none en-fr:transformer
          en-fr:luong-general-guided en-fr:transformer-guided
          zh-en:bahdanau zh-en:local-p zh-en:none zh-en:transformer
          taylor:luong-general taylor:local-p taylor:none
          tiny:bahdanau tiny:local-p tiny:local-m tiny:none tiny:transformer)
fi
if [ $resume -eq 0 ]; then
  for m in "${models[@]}"; do
    p=${m%%:*}; k=${m#*:}
    name="$p-$k"
    rm -rf "training/checkpoints/$name"
    rm -f "training/logs/$name.log"
  done
fi
/usr/bin/python3 training/run_queue.py "${models[@]}"
