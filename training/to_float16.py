"""Stores a bundled RNN translation model's weights as float16, and measures it again.

    /usr/bin/python3 training/to_float16.py resources/models/en-fr-luong-general.onnx [...]

Older zoo files keep float32 weights; newer ones (train.py since issue 35) are written with
export.store_float16, half the size. This rounds an older file's weights to float16
(models.round_to_float16), scores the rounded model again on the pair's test set (greedy and
beam 5, train.evaluate: the rounding moves BLEU by a few hundredths, and the card must describe
the file) and writes the file, its card and its parity fixture to training/zoo-next/ through
export.export_onnx, the exporter train.py uses. The training record (sizes, epochs, minutes, log)
is the file's own (al.model_card), unchanged: no weight is trained here.
"""
import argparse
import json
import os
import sys

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench_torch import load  # noqa: E402
from attention_lens import data  # noqa: E402
from attention_lens.export import export_onnx  # noqa: E402
from attention_lens.models import round_to_float16  # noqa: E402
from attention_lens.train import PARITY_SENTENCES, evaluate  # noqa: E402

STAGE = os.path.join(HERE, "zoo-next")


def restore(path, out_dir, fixture_dir, beam):
    meta = {p.key: p.value for p in onnx.load(path, load_external_data=False).metadata_props}
    assert meta["al.attention"] != "transformer", "the Transformer's exporter stores float16 already"
    model, _ = load(path)
    round_to_float16(model)
    pair = f"{meta['al.src_lang']}-{meta['al.tgt_lang']}"
    cfg = data.PAIRS[pair]
    src_vocab, tgt_vocab = json.loads(meta["al.src_vocab"]), json.loads(meta["al.tgt_vocab"])
    src_spec, tgt_spec = json.loads(meta["al.src_tokenizer"]), json.loads(meta["al.tgt_tokenizer"])
    si = {w: i for i, w in enumerate(src_vocab)}
    test = data.load_pair(pair)["test"]
    old = json.loads(meta["al.test_bleu"])
    greedy, _ = evaluate(model, test, src_spec, tgt_spec, si, tgt_vocab, beam=1)
    beamed, _ = evaluate(model, test, src_spec, tgt_spec, si, tgt_vocab, beam=beam)
    print(f"{meta['al.name']}: greedy {old['bleu']} -> {greedy['bleu']}, beam {beam} "
          f"{old.get('beam', {}).get('bleu')} -> {beamed['bleu']}", flush=True)
    card = json.loads(meta["al.model_card"])
    info = {
        "name": meta["al.name"], "pair": pair, "kind": meta["al.attention"], "cfg": cfg,
        "src_spec": src_spec, "tgt_spec": tgt_spec, "sizes": card["sizes"], "training": card["training"],
        "window": int(meta["al.window_d"]), "local_m_ratio": float(meta["al.local_m_ratio"]),
        "test": dict(greedy, **{k: old[k] for k in ("set", "sentences", "decoding", "src_unknown_tokens") if k in old},
                     beam=dict(beamed, size=beam, length_penalty=1.0)),
    }
    name = info["name"]
    export_onnx(model, src_vocab, tgt_vocab, info, os.path.join(out_dir, name + ".onnx"),
                os.path.join(fixture_dir, name + ".json"), PARITY_SENTENCES[pair], with_card=True,
                card_path=os.path.join(out_dir, name + ".md"), float16=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--out-dir", default=os.path.join(STAGE, "models"))
    ap.add_argument("--fixture-dir", default=os.path.join(STAGE, "parity"))
    ap.add_argument("--beam", type=int, default=5)
    a = ap.parse_args()
    for p in a.files:
        restore(p, a.out_dir, a.fixture_dir, a.beam)
