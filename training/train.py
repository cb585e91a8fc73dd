"""Train one model, measure it, export it to the one-file ONNX contract.

    /usr/bin/python3 training/train.py --pair en-fr --kind bahdanau

Writes resources/models/<pair>-<kind>.onnx, its model card <pair>-<kind>.md and the parity
fixture test/fixtures/parity/<pair>-<kind>.json. `--tiny` builds the small test fixture model.
"""
import argparse
import json
import math
import os
import random
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data  # noqa: E402
from bleu import corpus_bleu  # noqa: E402
from export import export_onnx  # noqa: E402
from models import Seq2Seq, greedy  # noqa: E402
from tokenizer import detokenize, tokenize  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
BUCKETS = [(1, 10), (11, 15), (16, 20), (21, 25), (26, 1000)]
PARITY_SENTENCES = {
    "en-fr": [
        "A man in an orange hat starring at something.",
        "Two dogs are playing in the snow near a red fence.",
        "A little girl in a pink dress is running on the beach while her father watches.",
    ],
    "zh-en": ["我很高兴见到你。", "他每天早上喝一杯咖啡。", "这本书是我的。"],
}


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pair", default="en-fr", choices=sorted(data.PAIRS))
    ap.add_argument("--kind", default="bahdanau")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--emb", type=int, default=128)
    ap.add_argument("--hid", type=int, default=128)
    ap.add_argument("--dec", type=int, default=256)
    ap.add_argument("--window", type=int, default=4)
    ap.add_argument("--min-freq", type=int, default=3)
    ap.add_argument("--max-vocab", type=int, default=6000)
    ap.add_argument("--limit", type=int, default=0, help="use only this many training pairs")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--name", default=None)
    ap.add_argument("--out-dir", default=os.path.join(ROOT, "resources", "models"))
    ap.add_argument("--fixture-dir", default=os.path.join(ROOT, "test", "fixtures", "parity"))
    ap.add_argument("--tiny", action="store_true", help="the small fixture model for tests")
    return ap.parse_args()


def bucket_of(n):
    for lo, hi in BUCKETS:
        if lo <= n <= hi:
            return f"{lo}-{hi}" if hi < 1000 else f"{lo}+"
    return "?"


def translate(model, srcs, spec_src, spec_tgt, src_index, tgt_vocab, batch=100):
    out = [None] * len(srcs)
    order = sorted(range(len(srcs)), key=lambda i: len(srcs[i]))
    for k in range(0, len(order), batch):
        idx = order[k : k + batch]
        enc = [data.encode(srcs[i], spec_src, src_index, 100) for i in idx]
        S = max(len(e) for e in enc)
        src = torch.zeros(len(idx), S, dtype=torch.long)
        for b, e in enumerate(enc):
            src[b, : len(e)] = torch.tensor(e)
        ids, _ = greedy(model, src, (src != 0).float(), max_len=2 * S + 10)
        for b, i in enumerate(idx):
            out[i] = detokenize([tgt_vocab[j] for j in ids[b]], spec_tgt)
    return out


def evaluate(model, pairs, cfg, src_index, tgt_vocab):
    srcs = [s for s, _ in pairs]
    refs = [r for _, r in pairs]
    hyps = translate(model, srcs, cfg["src_tok"], cfg["tgt_tok"], src_index, tgt_vocab)
    by = {}
    for s, h, r in zip(srcs, hyps, refs):
        by.setdefault(bucket_of(len(tokenize(s, cfg["src_tok"]))), []).append((h, r))
    buckets = []
    for lo, hi in BUCKETS:
        key = f"{lo}-{hi}" if hi < 1000 else f"{lo}+"
        if key in by:
            hs, rs = zip(*by[key])
            buckets.append({"bucket": key, "sentences": len(hs),
                            "bleu": round(corpus_bleu(hs, rs, lowercase=True), 2)})
    return {
        "bleu": round(corpus_bleu(hyps, refs, lowercase=True), 2),
        "bleu_cased": round(corpus_bleu(hyps, refs), 2),
        "by_length": buckets,
    }, hyps


def main():
    a = parse()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    random.seed(a.seed)
    if a.tiny:
        a.emb, a.hid, a.dec, a.epochs, a.limit, a.max_vocab, a.min_freq = 16, 16, 32, 2, 3000, 400, 2
    name = a.name or f"{a.pair}-{a.kind}"
    cfg = data.PAIRS[a.pair]
    corpus = data.load_pair(a.pair)
    train = corpus["train"][: a.limit] if a.limit else corpus["train"]
    src_vocab = data.build_vocab([s for s, _ in train], cfg["src_tok"], a.min_freq, a.max_vocab)
    tgt_vocab = data.build_vocab([t for _, t in train], cfg["tgt_tok"], a.min_freq, a.max_vocab)
    si = {w: i for i, w in enumerate(src_vocab)}
    ti = {w: i for i, w in enumerate(tgt_vocab)}
    enc_train = [(data.encode(s, cfg["src_tok"], si, 40), data.encode(t, cfg["tgt_tok"], ti, 40)) for s, t in train]
    enc_val = [(data.encode(s, cfg["src_tok"], si, 40), data.encode(t, cfg["tgt_tok"], ti, 40)) for s, t in corpus["val"]]
    ratio = sum(len(s) for s, _ in enc_train) / sum(len(t) for _, t in enc_train)
    model = Seq2Seq(a.kind, len(src_vocab), len(tgt_vocab), a.emb, a.hid, a.dec, a.window, ratio)
    params = sum(p.numel() for p in model.parameters())
    print(f"{name}: {len(train)} pairs, vocab {len(src_vocab)}/{len(tgt_vocab)}, {params} parameters", flush=True)
    opt = torch.optim.Adam(model.parameters(), lr=a.lr)
    t0 = time.time()
    log = []
    for epoch in range(a.epochs):
        model.train()
        if epoch >= a.epochs // 2:
            for g in opt.param_groups:
                g["lr"] *= 0.6
        tot, n = 0.0, 0
        for src, mask, tin, tout in data.batches(enc_train, a.batch, seed=a.seed + epoch):
            logits = model(src, mask, tin)
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tout.reshape(-1), ignore_index=0,
                                   label_smoothing=0.1)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            tot += loss.item()
            n += 1
        model.eval()
        with torch.no_grad():
            vl, vn = 0.0, 0
            for src, mask, tin, tout in data.batches(enc_val, 200, shuffle=False):
                logits = model(src, mask, tin)
                vl += F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tout.reshape(-1), ignore_index=0).item()
                vn += 1
        row = {"epoch": epoch + 1, "train_loss": round(tot / n, 4), "val_loss": round(vl / vn, 4),
               "minutes": round((time.time() - t0) / 60, 2)}
        log.append(row)
        print(json.dumps(row), flush=True)
    train_minutes = (time.time() - t0) / 60
    model.eval()
    test = corpus["test"]
    scores, hyps = evaluate(model, test, cfg, si, tgt_vocab)
    print(f"{name}: test BLEU {scores['bleu']} (cased {scores['bleu_cased']})", flush=True)
    for h, (s, r) in list(zip(hyps, test))[:3]:
        print(f"  {s}\n  -> {h}\n  ref {r}", flush=True)
    info = {
        "name": name,
        "pair": a.pair,
        "kind": a.kind,
        "cfg": cfg,
        "sizes": {"emb": a.emb, "enc_hidden": a.hid, "dec_hidden": a.dec, "parameters": params,
                  "src_vocab": len(src_vocab), "tgt_vocab": len(tgt_vocab), "min_freq": a.min_freq},
        "window": a.window if a.kind.startswith("local") else 0,
        "local_m_ratio": ratio,
        "training": {"pairs": len(train), "epochs": a.epochs, "batch": a.batch, "lr": a.lr,
                     "minutes": round(train_minutes, 1), "threads": a.threads, "seed": a.seed, "log": log},
        "test": dict(scores, set=cfg["test_name"], sentences=len(test), decoding="greedy"),
    }
    os.makedirs(a.out_dir, exist_ok=True)
    os.makedirs(a.fixture_dir, exist_ok=True)
    export_onnx(model, src_vocab, tgt_vocab, info, os.path.join(a.out_dir, name + ".onnx"),
                os.path.join(a.fixture_dir, name + ".json"), PARITY_SENTENCES[a.pair], with_card=not a.tiny,
                card_path=os.path.join(a.out_dir, name + ".md"))


if __name__ == "__main__":
    main()
