#!/usr/bin/env bash
# Rebuilds the whole model zoo: trains, evaluates and exports every bundled model, two at a time
# (one CPU core each), then rebuilds the tiny test fixture models.
#   bash training/build_zoo.sh                  # everything
#   bash training/build_zoo.sh en-fr:none ...   # just the named models
set -euo pipefail
cd "$(dirname "$0")/.."
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
mkdir -p training/logs
models=("$@")
if [ ${#models[@]} -eq 0 ]; then
  models=(en-fr:bahdanau en-fr:local-p en-fr:none en-fr:luong-general en-fr:local-m zh-en:bahdanau zh-en:local-p
          taylor:luong-general taylor:local-p taylor:none tiny:bahdanau tiny:local-p tiny:local-m tiny:none)
fi
printf '%s\n' "${models[@]}" | xargs -P 2 -I{} bash training/train_one.sh {}
