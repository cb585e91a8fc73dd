#!/usr/bin/env bash
# One model of the zoo: PAIR:KIND (PAIR "tiny" = the small en-fr fixture models used by tests).
set -uo pipefail
cd "$(dirname "$0")/.."
pair=${1%%:*}; kind=${1#*:}
case "$pair" in
  en-fr) args=(--pair en-fr --epochs 4) ;;
  zh-en) args=(--pair zh-en --epochs 6) ;;
  tiny)  args=(--pair en-fr --tiny --name "tiny-$kind" --out-dir test/fixtures/models) ;;
esac
log="training/logs/$pair-$kind.log"
if OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 /usr/bin/python3 training/train.py --kind "$kind" "${args[@]}" > "$log" 2>&1; then
  echo "done $1: $(grep 'test BLEU' "$log")"
else
  echo "FAILED $1 (see $log)"; exit 1
fi
