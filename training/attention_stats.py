"""What a model's attention looks like on a test set (greedy decoding, as the app first shows it).

    /usr/bin/python3 training/attention_stats.py resources/models/en-fr-local-p.onnx ...
    /usr/bin/python3 training/attention_stats.py --ckpt en-fr-local-p --epoch 3 [--limit 200]

Per model, over every greedy output step of every test sentence (the bundled test set of its pair,
resources/testsets/<pair>.<src>):

- `eos_mass`: the mean weight on the source `</s>` over the steps before the last (the step that
  writes `</s>` is left out: looking at `</s>` there is expected);
- `max_weight`: the mean of each step's largest weight;
- local kinds: per sentence the Pearson correlation between p_t (the `position` output) and the
  attention's centre of mass sum_j j a_tj / sum_j a_tj (the median over sentences of 3+ steps
  whose p_t and centre both vary), the mean |p_t - centre| over all steps, the same at the first
  step, the share of the weights inside [p_t - D, p_t + D] (1 by construction for the exported
  weights), the mean total weight sum_j a_tj (the softmax mass the Gaussian keeps: 1 = the Gaussian
  does not narrow anything) and the mean number of source positions inside the window against the
  mean source length.
"""
import argparse
import json
import os
import statistics
import sys

import onnx
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from attention_lens import data  # noqa: E402
from attention_lens.models import Seq2Seq, greedy  # noqa: E402

ROOT = os.path.join(HERE, "..")


def test_sources(pair, limit=0):
    src = pair.split("-")[0]
    with open(os.path.join(ROOT, "resources", "testsets", f"{pair}.{src}"), encoding="utf-8") as f:
        lines = [l.rstrip("\n") for l in f]
    return lines[:limit] if limit else lines


def pearson(x, y):
    mx, my = sum(x) / len(x), sum(y) / len(y)
    vx = sum((a - mx) ** 2 for a in x)
    vy = sum((b - my) ** 2 for b in y)
    if vx < 1e-12 or vy < 1e-12:
        return None
    return sum((a - mx) * (b - my) for a, b in zip(x, y)) / (vx * vy) ** 0.5


def measure(model, spec, index, texts, batch=100):
    local = model.kind.startswith("local")
    D = model.window
    eos, maxw, corr, dist, dist1, inside, total, width, p1, c1 = [], [], [], [], [], [], [], [], [], []
    lengths = []
    for _, enc, src, mask in data.source_batches(texts, spec, index, batch):
        S = src.shape[1]
        ids, steps = greedy(model, src, mask, max_len=2 * S + 10)
        for b, e in enumerate(enc):
            n = len(e)
            lengths.append(n)
            T = min(len(ids[b]) + 1, len(steps))
            A = torch.stack([steps[t]["attention"][b, :n] for t in range(T)])  # [T, n]
            for t in range(T - 1):
                eos.append(A[t, n - 1].item())
            maxw += A.max(1).values.tolist()
            if not local:
                continue
            p = torch.stack([steps[t]["position"][b] for t in range(T)])
            pos = torch.arange(n, dtype=torch.float32)
            mass = A.sum(1)
            centre = (A * pos).sum(1) / mass.clamp(min=1e-12)
            inwin = ((pos.unsqueeze(0) - p.unsqueeze(1)).abs() <= D).float()
            inside += ((A * inwin).sum(1) / mass.clamp(min=1e-12)).tolist()
            total += mass.tolist()
            width += inwin.sum(1).tolist()
            dist += (p - centre).abs().tolist()
            dist1.append(abs(p[0] - centre[0]).item())
            p1.append(p[0].item())
            c1.append(centre[0].item())
            if T >= 3:
                r = pearson(p.tolist(), centre.tolist())
                if r is not None:
                    corr.append(r)
    out = {"sentences": len(texts), "steps": len(maxw), "eos_mass": round(statistics.fmean(eos), 4),
           "max_weight": round(statistics.fmean(maxw), 4), "mean_source_length": round(statistics.fmean(lengths), 2)}
    if local:
        out.update({"D": D, "corr_median": round(statistics.median(corr), 4), "corr_sentences": len(corr),
                    "distance_mean": round(statistics.fmean(dist), 3), "distance_step1": round(statistics.fmean(dist1), 3),
                    "p_step1_mean": round(statistics.fmean(p1), 3), "centre_step1_mean": round(statistics.fmean(c1), 3),
                    "inside_window": round(statistics.fmean(inside), 4), "weight_total_mean": round(statistics.fmean(total), 4),
                    "window_positions_mean": round(statistics.fmean(width), 2)})
    return out


def from_checkpoint(name, epoch, kind, window):
    """A training checkpoint with the vocabularies of its last.pt and the specs learned again."""
    ck = torch.load(os.path.join(HERE, "checkpoints", name, "last.pt"), weights_only=False)
    pair = "-".join(name.split("-")[:2])
    corpus = data.load_pair(pair)
    src_spec, src_vocab, _, tgt_vocab = data.tokenizers(pair, corpus["train"])
    assert src_vocab == ck["src_vocab"] and tgt_vocab == ck["tgt_vocab"]
    # local-m's ratio only matters for local-m; the stats here are about p_t.
    model = Seq2Seq(kind, len(src_vocab), len(tgt_vocab), window=window)
    sd = ck["model"] if epoch == 0 else torch.load(os.path.join(HERE, "checkpoints", name, f"epoch-{epoch}.pt"))
    model.load_state_dict(sd)
    model.eval()
    return model, src_spec, {w: i for i, w in enumerate(src_vocab)}, pair


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("models", nargs="*", help="ONNX files")
    ap.add_argument("--ckpt", help="a checkpoint folder name under training/checkpoints")
    ap.add_argument("--epoch", type=int, default=0, help="with --ckpt: that epoch's weights (0: last.pt)")
    ap.add_argument("--kind")
    ap.add_argument("--window", type=int, default=4)
    ap.add_argument("--limit", type=int, default=0, help="only the first N test sentences")
    a = ap.parse_args()
    torch.set_num_threads(1)
    from bench_torch import load
    jobs = []
    for path in a.models:
        model, (spec, index) = load(path)
        meta = {p.key: p.value for p in onnx.load(path, load_external_data=False).metadata_props}
        jobs.append((os.path.basename(path)[: -len(".onnx")], model, spec, index, f"{meta['al.src_lang']}-{meta['al.tgt_lang']}"))
    if a.ckpt:
        model, spec, index, pair = from_checkpoint(a.ckpt, a.epoch, a.kind, a.window)
        jobs.append((f"{a.ckpt}@{a.epoch or 'last'}", model, spec, index, pair))
    for name, model, spec, index, pair in jobs:
        if model.kind in ("none", "transformer"):
            continue
        print(json.dumps({"model": name, **measure(model, spec, index, test_sources(pair, a.limit))}), flush=True)


if __name__ == "__main__":
    main()
