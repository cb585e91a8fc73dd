#!/usr/bin/env bash
# Rebuilds the figures the README shows, with the command-line exporter and the bundled models.
# Needs `npm run build` first (the CLI runs from out/main/cli.js) and poppler-utils (pdftoppm) for
# the pictures of PDF pages.
set -euo pipefail
cd "$(dirname "$0")/.."
M=resources/models
T=resources/testsets
OUT=docs/images
mkdir -p "$OUT"
lens() { node bin/attention-lens.mjs "$@"; }
S="A little girl in a pink dress is running on the beach."
LONG="Two men in orange vests are working on the train tracks while a woman with a red umbrella walks past them."

# Slides: 13.33 × 7.5 in, lecture-hall text (20 pt), PNG at 1× (96 dpi: 1280 × 720 pixels).
lens export --model $M/en-fr-bahdanau.onnx --src "$S" --view heatmap --out $OUT/figure-heatmap.png \
  --size slide-16x9 --scale 1 --font lecture --title "Bahdanau attention, en→fr" \
  --caption "en-fr-bahdanau, greedy decoding"
# --step and --at count output steps from 1, as the app does.
lens export --model $M/en-fr-local-p.onnx --src "$S" --view local --step 4 --out $OUT/figure-local-p.svg \
  --size slide-16x9 --font lecture --title "local-p: where output step 4 looks"
lens export --model $M/en-fr-local-p.onnx --src "$S" --view step --step 4 --out $OUT/figure-step.png \
  --size slide-16x9 --scale 1 --font screen --title "One step of local-p, stage by stage"
lens export --model $M/en-fr-bahdanau.onnx --src "$S" --view lines --out $OUT/figure-lines.png \
  --size slide-16x9 --scale 1 --font lecture
lens export --model $M/en-fr-bahdanau.onnx --src "$S" --view whatif --mode onehot --at 3 --source 9 --out $OUT/figure-whatif.png \
  --size slide-16x9 --scale 1 --font screen --title "What if step 3 read only “running”?"
lens export --model $M/en-fr-none.onnx --model $M/en-fr-bahdanau.onnx --model $M/en-fr-luong-general.onnx --model $M/en-fr-local-p.onnx \
  --src $T/en-fr.en --ref $T/en-fr.fr --view corpus --out $OUT/figure-corpus.png --size slide-16x9 --scale 1 --font lecture \
  --title "BLEU by source length, Multi30K test 2016"
lens export --model $M/zh-en-local-p.onnx --src "我们明天去公园散步。" --view heatmap --lang zh \
  --out $OUT/figure-zh-en.png --size slide-4x3 --scale 1 --font lecture --title "局部注意力 local-p, zh→en"

# Two attention kinds on one colour scale with their difference, and the beam search as a tree.
lens export --model $M/en-fr-bahdanau.onnx --model $M/en-fr-luong-general.onnx --src "$S" --view sidebyside \
  --out $OUT/figure-sidebyside.png --size slide-16x9 --scale 1 --font screen --title "Bahdanau and Luong (general), one scale"
lens export --model $M/en-fr-luong-general.onnx --src "A dog runs on the beach." --view beam --beam 3 \
  --out $OUT/figure-beam.png --size slide-16x9 --scale 1 --font screen --title "Beam search, K = 3"

# A paper: with and without attention across the full text width (7 in), and a local-p heatmap
# one column wide (3.5 in) in paper-size text (8 pt); their PDF pages pictured by pdftoppm, the
# single column at 300 dpi as it prints.
lens export --model $M/en-fr-none.onnx --model $M/en-fr-bahdanau.onnx --model $M/en-fr-local-p.onnx \
  --src "$LONG" --view comparison --out $OUT/figure-comparison.pdf --size paper-double --font paper
pdftoppm -png -r 150 -singlefile $OUT/figure-comparison.pdf $OUT/figure-comparison-pdf-page
lens export --model $M/en-fr-local-p.onnx --src "$S" --view heatmap --out $OUT/figure-paper-single.pdf \
  --size paper-single --font paper
pdftoppm -png -r 300 -singlefile $OUT/figure-paper-single.pdf $OUT/figure-paper-single-pdf-page
