"""A small random Marian with the head count of the large models: 12 + 12 layers x 16 heads = 192
cross-attention heads (BART-large, M2M100-418M and NLLB-600M have 12 layers x 16 heads), for the
views' tests at that size (issue 39 #6): the heads overview, a click that opens one head, and the
Alignment score over 192 heads.

    /tmp/hfvenv/bin/python training/hf_many_heads.py [--out test/fixtures/hf/many-heads]

d_model 32 (head dimension 2), FFN 16, 128 positions, the test Marian's SentencePiece pair and vocabulary
(test/fixtures/hf/marian, en -> fr, 1,784 pieces), random weights (seed 12). The cross-attention's
q/k projections are drawn wider layer by layer (std 0.05 in layer 1 to 0.6 in layer 12) so that the
heads differ (at transformers' init std 0.02 every head is almost uniform). Exported with
hf_test_models.export_folder (TorchScript exporter, Optimum's names) as encoder_model.onnx and
decoder_model_merged.onnx beside config.json, as the m2m100 fixture is; generation_config.json's
max_length is 40, since an untrained model seldom writes </s>. About 2 MB; no reference.json (the
tests compute what they check from the engine's raw attention).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hf_test_models as hf  # noqa: E402  (its export code, unchanged)

ROOT = Path(__file__).resolve().parent.parent
LAYERS, HEADS, D = 12, 16, 32


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(ROOT / "test" / "fixtures" / "hf" / "many-heads"))
    a = ap.parse_args()
    from transformers import MarianConfig, MarianMTModel

    spm_from = ROOT / "test" / "fixtures" / "hf" / "marian"
    out = Path(a.out)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for f in ("source.spm", "target.spm", "vocab.json", "tokenizer_config.json"):
        shutil.copy(spm_from / f, out / f)
    vocab = json.loads((out / "vocab.json").read_text(encoding="utf-8"))
    pad = vocab["<pad>"]
    cfg = MarianConfig(vocab_size=len(vocab), d_model=D, encoder_layers=LAYERS, decoder_layers=LAYERS, encoder_attention_heads=HEADS,
                       decoder_attention_heads=HEADS, encoder_ffn_dim=D // 2, decoder_ffn_dim=D // 2, max_position_embeddings=128,
                       pad_token_id=pad, eos_token_id=0, decoder_start_token_id=pad, forced_eos_token_id=0,
                       share_encoder_decoder_embeddings=True, scale_embedding=True)
    torch.manual_seed(12)
    model = MarianMTModel(cfg)
    with torch.no_grad():
        for i, layer in enumerate(model.model.decoder.layers):
            std = 0.05 + (0.6 - 0.05) * i / (LAYERS - 1)
            for proj in (layer.encoder_attn.q_proj, layer.encoder_attn.k_proj):
                proj.weight.normal_(0.0, std)
    model.eval()
    hf.clean_generation_config(model, bad_words_ids=[[pad]], decoder_start_token_id=pad, pad_token_id=pad, eos_token_id=0, max_length=40)
    model.save_pretrained(out)
    hf._drop_weights(out)
    hf.export_folder(model, out, cross_out=False, merged=True)
    total = sum(p.stat().st_size for p in out.iterdir())
    print(f"{out}: {LAYERS} x {HEADS} heads, {total / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
