#!/usr/bin/env bash
# One model of the zoo: PAIR:KIND (PAIR "tiny" = the small en-fr fixture models used by tests,
# PAIR "taylor" = the electricity-demand forecasters).
set -uo pipefail
cd "$(dirname "$0")/.."
pair=${1%%:*}; kind=${1#*:}
case "$pair" in
  en-fr) args=(--pair en-fr --epochs 4) ;;
  zh-en) args=(--pair zh-en --epochs 6) ;;
  tiny)  args=(--pair en-fr --tiny --name "tiny-$kind" --out-dir test/fixtures/models) ;;
esac
log="training/logs/$pair-$kind.log"
if [ "$pair" = taylor ]; then
  # The forecasters (training/forecast.py); one of them also rewrites the bundled held-out series.
  cmd=(training/forecast.py --kind "$kind"); what='test MAE'
  [ "$kind" = luong-general ] && cmd+=(--write-series)
else
  cmd=(training/train.py --kind "$kind" "${args[@]}"); what='test BLEU'
fi
if OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 /usr/bin/python3 "${cmd[@]}" > "$log" 2>&1; then
  echo "done $1: $(grep "$what" "$log")"
else
  echo "FAILED $1 (see $log)"; exit 1
fi
