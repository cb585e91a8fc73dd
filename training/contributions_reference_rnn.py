"""Independent reference for the RNN analogue of the source share (issue 41, src/shared/context-norm.ts).

Run from the repository root with Debian's /usr/bin/python3 (torch, onnx):

    /usr/bin/python3 training/contributions_reference_rnn.py --n 5 \
        --out test/fixtures/contributions/rnn-context-norm.json.gz \
        resources/models/en-fr-bahdanau.onnx resources/models/en-fr-luong-general.onnx resources/models/en-fr-local-p.onnx

Each model is rebuilt in PyTorch from the file's own initializers (bench_torch.load: the training
code's Seq2Seq with the exported weights), each of the first N sentences of --src is decoded
greedily (models.greedy), and the output is fed back through Seq2Seq.step with a forward hook on
the layer that reads the context vector, as the training code writes it:

- Bahdanau: tanh(out([s_t; c_t; e_t])), s_t the new decoder state, e_t the previous word's embedding;
- Luong (global and local): h~_t = tanh(W_c([c_t; s_t])).

The hook gives the layer's input; it is split by the training code's widths (dec_dim, mem,
emb_dim), and each part's contribution to the pre-activation is W[:, part] x_part (no bias). The
share is ||W_c c_t|| / sum over the parts of ||W_p x_p||, in float64. Written per case: the norms
[T][P] in the layer's input order, the share, the attention weights [T][S], and `no_state_share`,
the share with the decoder state's part left out of the sum (the app's tests check it differs).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys

import onnx
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attention_lens import data  # noqa: E402
from attention_lens.models import greedy  # noqa: E402
from bench_torch import load  # noqa: E402

D = torch.float64


def layer_and_parts(model):
    """The layer that reads c_t and its input's parts (role, width) in the training code's order."""
    if model.kind == "none":
        raise SystemExit("the model has no attention, so no context vector to weigh")
    if model.kind == "bahdanau":
        return model.out, [("state", model.dec_dim), ("context", model.mem), ("embedding", model.emb_dim)]
    return model.W_c, [("context", model.mem), ("state", model.dec_dim)]


def rnd(x, k=7):
    if isinstance(x, list):
        return [rnd(v, k) for v in x]
    return round(float(x), k)


@torch.no_grad()
def reference(model, src_ids, tgt_ids, eos=3, bos=2):
    layer, parts = layer_and_parts(model)
    seen = []
    hook = layer.register_forward_hook(lambda mod, inp, out: seen.append(inp[0][0].detach().to(D)))
    src = torch.tensor([src_ids])
    mask = torch.ones(1, len(src_ids))
    H, state = model.encode(src, mask)
    prev = torch.tensor([bos])
    weights = []
    for t, tok in enumerate(tgt_ids + [eos]):
        o = model.step(prev, state, H, mask, torch.tensor([float(t)]), torch.zeros(1, len(src_ids)), torch.zeros(1, 1))
        state = o["next_state"]
        weights.append(o["attention"][0].tolist())
        prev = torch.tensor([tok])
    hook.remove()
    W = layer.weight.detach().to(D)
    norms, share, no_state = [], [], []
    for x in seen:
        row, at = [], 0
        for _, width in parts:
            row.append(float(torch.linalg.vector_norm(W[:, at : at + width] @ x[at : at + width])))
            at += width
        assert at == x.shape[0] == W.shape[1]
        ctx = sum(n for n, (r, _) in zip(row, parts) if r == "context")
        norms.append(row)
        share.append(ctx / sum(row))
        no_state.append(ctx / sum(n for n, (r, _) in zip(row, parts) if r != "state"))
    return {"parts": [r for r, _ in parts], "norms": norms, "source_share": share, "no_state_share": no_state, "weights": weights}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("models", nargs="+")
    ap.add_argument("--src", default="resources/testsets/en-fr.en")
    ap.add_argument("--n", type=int, default=5)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    sentences = [s for s in open(a.src, encoding="utf8").read().split("\n") if s.strip()][: a.n]
    out = {"models": {}}
    for path in a.models:
        model, (spec, index) = load(path)
        meta = {p.key: p.value for p in onnx.load(path, load_external_data=False).metadata_props}
        tgt_vocab = json.loads(meta["al.tgt_vocab"])
        cases = []
        for s in sentences:
            src_ids = data.encode(s, spec, index, 200)
            ids, _ = greedy(model, torch.tensor([src_ids]), torch.ones(1, len(src_ids)), 2 * len(src_ids) + 10)
            r = reference(model, src_ids, ids[0])
            cases.append({
                "source": s,
                "src_ids": src_ids,
                "tgt_ids": ids[0],
                "tgt_tokens": [tgt_vocab[i] for i in ids[0]] + ["</s>"],
                "parts": r["parts"],
                "norms": rnd(r["norms"]),
                "source_share": rnd(r["source_share"]),
                "no_state_share": rnd(r["no_state_share"]),
                "weights": rnd(r["weights"]),
            })
        out["models"][os.path.basename(path)[: -len(".onnx")]] = {"kind": model.kind, "cases": cases}
        print(os.path.basename(path), model.kind, [round(sum(c["source_share"]) / len(c["source_share"]), 3) for c in cases])
    with gzip.open(a.out, "wt", encoding="utf8") as f:
        json.dump(out, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
