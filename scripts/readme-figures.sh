#!/usr/bin/env bash
# Rebuilds the figures the README shows, with the command-line exporter and the bundled models.
# Needs `npm run build` first (the CLI runs from out/main/cli.js) and poppler-utils for the PDF preview.
set -euo pipefail
cd "$(dirname "$0")/.."
M=resources/models
OUT=docs/images
mkdir -p "$OUT"
S="A little girl in a pink dress is running on the beach."
node bin/attention-lens.mjs export --model $M/en-fr-bahdanau.onnx --src "$S" --view heatmap \
  --out $OUT/figure-heatmap.png --size slide-16x9 --scale 1 --font screen --title "Bahdanau attention, en→fr" \
  --caption "en-fr-bahdanau, greedy decoding; rows: French output, columns: English source"
node bin/attention-lens.mjs export --model $M/en-fr-local-p.onnx --src "$S" --view local --step 3 \
  --out $OUT/figure-local-p.svg --size slide-16x9 --font screen --title "local-p: the spotlight at one output step"
node bin/attention-lens.mjs export --model $M/en-fr-none.onnx --model $M/en-fr-bahdanau.onnx --model $M/en-fr-local-p.onnx \
  --src "Two men in orange vests are working on the train tracks while a woman with a red umbrella walks past them." \
  --view comparison --out $OUT/figure-comparison.pdf --size paper-double --font paper --title "With and without attention"
pdftoppm -png -r 96 -singlefile $OUT/figure-comparison.pdf $OUT/figure-comparison-pdf-page
node bin/attention-lens.mjs export --model $M/zh-en-local-p.onnx --src "我们明天去公园散步。" --view heatmap \
  --out $OUT/figure-zh-en.png --size slide-4x3 --scale 1 --font lecture --title "局部注意力 local-p, zh→en"
