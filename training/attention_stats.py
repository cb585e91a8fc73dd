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
from attention_lens.bleu import corpus_bleu  # noqa: E402
from attention_lens.models import Seq2Seq, greedy  # noqa: E402
from attention_lens.tokenizer import detokenize  # noqa: E402

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


def target_side(meta, pair, limit):
    """(target spec, target vocabulary, references) from a file's metadata and the bundled test set."""
    tgt = pair.split("-")[1]
    with open(os.path.join(ROOT, "resources", "testsets", f"{pair}.{tgt}"), encoding="utf-8") as f:
        refs = [l.rstrip("\n") for l in f]
    return json.loads(meta["al.tgt_tokenizer"]), json.loads(meta["al.tgt_vocab"]), refs[:limit] if limit else refs


def measure(model, spec, index, texts, batch=100, target=None):
    """The statistics above; with `target` (target_side) also the greedy BLEU (case-insensitive)."""
    local = model.kind.startswith("local")
    hyps = [None] * len(texts)
    D = model.window
    eos, maxw, corr, dist, dist1, inside, total, width, p1, c1 = [], [], [], [], [], [], [], [], [], []
    lengths = []
    for idx, enc, src, mask in data.source_batches(texts, spec, index, batch):
        S = src.shape[1]
        ids, steps = greedy(model, src, mask, max_len=2 * S + 10)
        for b, e in enumerate(enc):
            if target:
                hyps[idx[b]] = detokenize([target[1][j] for j in ids[b]], target[0])
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
    if target:
        out["greedy_bleu"] = round(corpus_bleu(hyps, target[2], lowercase=True), 2)
    if local:
        out.update({"D": D, "corr_median": round(statistics.median(corr), 4), "corr_sentences": len(corr),
                    "distance_mean": round(statistics.fmean(dist), 3), "distance_step1": round(statistics.fmean(dist1), 3),
                    "p_step1_mean": round(statistics.fmean(p1), 3), "centre_step1_mean": round(statistics.fmean(c1), 3),
                    "inside_window": round(statistics.fmean(inside), 4), "weight_total_mean": round(statistics.fmean(total), 4),
                    "window_positions_mean": round(statistics.fmean(width), 2)})
    return out


def from_checkpoint(name, epoch, kind, window, attend_eos=True, spec_from=None):
    """A training checkpoint with the vocabularies of its last.pt and the source spec learned
    again (or read from `spec_from`, an exported file with the same vocabularies)."""
    ck = torch.load(os.path.join(HERE, "checkpoints", name, "last.pt"), weights_only=False)
    pair = "-".join(name.split("-")[:2])
    src_vocab, tgt_vocab = ck["src_vocab"], ck["tgt_vocab"]
    if spec_from:
        meta = {p.key: p.value for p in onnx.load(spec_from, load_external_data=False).metadata_props}
        src_spec = json.loads(meta["al.src_tokenizer"])
        assert json.loads(meta["al.src_vocab"]) == src_vocab
    else:
        src_spec, vocab, _, _ = data.tokenizers(pair, data.load_pair(pair)["train"])
        assert vocab == src_vocab
    # local-m's ratio only matters for local-m; the stats here are about p_t.
    sd = ck["model"] if epoch == 0 else torch.load(os.path.join(HERE, "checkpoints", name, f"epoch-{epoch}.pt"))
    # The sizes from the weights (zh-en's RNNs are wider than en-fr's).
    dec, mem = sd["init.weight"].shape
    model = Seq2Seq(kind, len(src_vocab), len(tgt_vocab), emb=sd["tgt_emb.weight"].shape[1], hid=mem // 2, dec=dec,
                    window=window, attend_eos=attend_eos)
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
    ap.add_argument("--attend-eos", type=int, default=1, choices=(0, 1), help="with --ckpt: the model's --attend-eos")
    ap.add_argument("--spec-from", help="with --ckpt: read the source tokenizer from this ONNX file (same vocabularies)")
    ap.add_argument("--limit", type=int, default=0, help="only the first N test sentences")
    ap.add_argument("--bleu", action="store_true", help="also the greedy BLEU against the bundled references")
    a = ap.parse_args()
    torch.set_num_threads(1)
    from bench_torch import load
    jobs = []
    for path in a.models:
        model, (spec, index) = load(path)
        meta = {p.key: p.value for p in onnx.load(path, load_external_data=False).metadata_props}
        pair = f"{meta['al.src_lang']}-{meta['al.tgt_lang']}"
        jobs.append((os.path.basename(path)[: -len(".onnx")], model, spec, index, pair, meta))
    if a.ckpt:
        model, spec, index, pair = from_checkpoint(a.ckpt, a.epoch, a.kind, a.window, bool(a.attend_eos), a.spec_from)
        meta = {p.key: p.value for p in onnx.load(a.spec_from, load_external_data=False).metadata_props} if a.spec_from else None
        jobs.append((f"{a.ckpt}@{a.epoch or 'last'}", model, spec, index, pair, meta))
    for name, model, spec, index, pair, meta in jobs:
        if model.kind in ("none", "transformer"):
            continue
        target = target_side(meta, pair, a.limit) if a.bleu and meta else None
        print(json.dumps({"model": name, **measure(model, spec, index, test_sources(pair, a.limit), target=target)}), flush=True)


if __name__ == "__main__":
    main()
