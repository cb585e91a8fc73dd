"""Train one model, measure it, export it to the one-file ONNX contract.

    /usr/bin/python3 training/train.py --pair en-fr --kind bahdanau [--resume] [--stage train|eval|all]

Training writes a checkpoint per epoch to training/checkpoints/<name>/ (`--resume` continues from
the last one, bit for bit as if never stopped); `--stage eval` (or the end of `all`) averages the
last `--average` epoch checkpoints, measures greedy and beam-5 BLEU on the test split and writes
<out-dir>/<name>.onnx, its model card <out-dir>/<name>.md and the parity fixture
<fixture-dir>/<name>.json. `--tiny` builds the small test fixture model.
"""
import argparse
import json
import math
import os
import random
import time

import torch
import torch.nn.functional as F

from . import data
from .bleu import corpus_bleu
from . import models
from .models import Seq2Seq, beam_search, greedy
from .tokenizer import detokenize, tokenize, units_of, normalize

from . import STAGE
from . import TRAINING as HERE
BUCKETS = [(1, 10), (11, 15), (16, 20), (21, 25), (26, 1000)]
PARITY_SENTENCES = {
    "en-fr": [
        "A man in an orange hat starring at something.",
        "Two dogs are playing in the snow near a red fence.",
        "A little girl in a pink dress is running on the beach while her father watches.",
        "A man wearing a t-shirt isn't looking at the 2 dogs' toys.",
    ],
    "zh-en": ["我很高兴见到你。", "他每天早上喝一杯咖啡。", "这本书是我的。"],
}


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pair", default="en-fr", choices=sorted(data.PAIRS))
    ap.add_argument("--kind", default="bahdanau")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--lr-floor", type=float, default=0.05, help="final lr as a fraction of --lr")
    ap.add_argument("--warmup", type=int, default=300, help="linear warm-up steps")
    ap.add_argument("--dropout", type=float, default=0.3)
    ap.add_argument("--average", type=int, default=3, help="average the last N epoch checkpoints")
    ap.add_argument("--emb", type=int, default=128)
    ap.add_argument("--hid", type=int, default=128)
    ap.add_argument("--dec", type=int, default=256)
    ap.add_argument("--window", type=int, default=4, help="local attention's half-window D (what is exported)")
    ap.add_argument("--window-start", type=float, default=0,
                    help="local kinds: start training with this D and narrow it linearly to --window over --window-anneal epochs")
    ap.add_argument("--window-anneal", type=float, default=2.0, help="epochs over which D narrows to --window")
    ap.add_argument("--attend-eos", type=int, default=1, choices=(0, 1),
                    help="0: attention never reads the source </s> (models.without_eos)")
    ap.add_argument("--p-guide", type=float, default=0.0,
                    help="local-p: weight of a loss pulling p_t to the diagonal (models.diagonal_guide), "
                         "decaying linearly to 0 over --p-guide-epochs")
    ap.add_argument("--p-guide-epochs", type=float, default=2.0)
    ap.add_argument("--align-links", default=None,
                    help="statistical links of the training split (training/align_train.py); 'auto': "
                         "training/alignments/<pair>.links. Needed by --p-align and --guided-align")
    ap.add_argument("--p-align", type=float, default=0.0,
                    help="local-p: weight of a smooth-L1 loss pulling p_t to the mean linked source position of "
                         "each target piece (align.position_loss), through all of training")
    ap.add_argument("--p-align-floor", type=float, default=1.0,
                    help="--p-align's weight at the end, as a fraction (linear over training; 1: constant)")
    ap.add_argument("--guided-align", type=float, default=0.0,
                    help="weight of the guided-alignment cross-entropy (align.attention_ce) on the attention "
                         "(an RNN's) or on --guided-head (a Transformer's)")
    ap.add_argument("--guided-head", default="3:1",
                    help="transformer: the supervised cross-attention head, LAYER:HEAD counted from 1")
    ap.add_argument("--init", default=None,
                    help="start from this ONNX file's weights (same kind and vocabularies), e.g. the previous model")
    ap.add_argument("--min-freq", type=int, default=3)
    ap.add_argument("--max-vocab", type=int, default=8000)
    ap.add_argument("--max-len", type=int, default=50, help="tokens per side kept for training")
    ap.add_argument("--beam", type=int, default=5)
    ap.add_argument("--limit", type=int, default=0, help="use only this many training pairs")
    ap.add_argument("--test-limit", type=int, default=0, help="smoke tests: only this many test pairs")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--name", default=None)
    ap.add_argument("--resume", action="store_true", help="continue from the last checkpoint")
    ap.add_argument("--stage", default="all", choices=("all", "train", "eval"))
    ap.add_argument("--max-steps", type=int, default=0, help="timing runs: stop after N batches")
    ap.add_argument("--log-every", type=int, default=0, help="print the mean training loss every N batches")
    ap.add_argument("--stop-after-epoch", type=int, default=0, help="resume tests: exit after saving epoch N")
    ap.add_argument("--out-dir", default=os.path.join(STAGE, "models"))
    ap.add_argument("--fixture-dir", default=os.path.join(STAGE, "parity"))
    ap.add_argument("--ckpt-dir", default=os.path.join(HERE, "checkpoints"))
    ap.add_argument("--tiny", action="store_true", help="the small fixture model for tests")
    # --kind transformer only (training/attention_lens/transformer.py)
    ap.add_argument("--d-model", type=int, default=192)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--layers", type=int, default=3, help="encoder layers, and as many decoder layers")
    ap.add_argument("--ffn", type=int, default=768)
    ap.add_argument("--max-target", type=int, default=128, help="decoder cache length T: at most T output steps")
    return ap.parse_args()


def bucket_of(n):
    for lo, hi in BUCKETS:
        if lo <= n <= hi:
            return f"{lo}-{hi}" if hi < 1000 else f"{lo}+"
    return "?"


def source_words(text, spec):
    """Source length for the length buckets: words (pre-tokenized units; jieba words), characters for a char spec."""
    if spec["type"] == "char":
        return len(tokenize(text, spec))
    return len(units_of(normalize(text, spec), spec))


def translate(model, srcs, spec_src, spec_tgt, src_index, tgt_vocab, beam=1, batch=100):
    out = [None] * len(srcs)
    for idx, _, src, mask in data.source_batches(srcs, spec_src, src_index, batch):
        S = src.shape[1]
        if getattr(model, "kind", None) == "transformer":
            from . import transformer
            ids = (transformer.beam_search(model, src, mask, K=beam) if beam > 1
                   else transformer.greedy(model, src, mask, max_len=2 * S + 10)[0])
        elif beam > 1:
            ids = beam_search(model, src, mask, K=beam)
        else:
            ids, _ = greedy(model, src, mask, max_len=2 * S + 10)
        for b, i in enumerate(idx):
            toks = [tgt_vocab[j] for j in ids[b]]
            assert "<unk>" not in toks  # masked in decoding
            out[i] = detokenize(toks, spec_tgt)
    return out


def evaluate(model, pairs, src_spec, tgt_spec, src_index, tgt_vocab, beam):
    srcs = [s for s, _ in pairs]
    refs = [r for _, r in pairs]
    hyps = translate(model, srcs, src_spec, tgt_spec, src_index, tgt_vocab, beam=beam)
    by = {}
    for s, h, r in zip(srcs, hyps, refs):
        by.setdefault(bucket_of(source_words(s, src_spec)), []).append((h, r))
    buckets = []
    for lo, hi in BUCKETS:
        key = f"{lo}-{hi}" if hi < 1000 else f"{lo}+"
        if key in by:
            hs, rs = zip(*by[key])
            buckets.append({"bucket": key, "sentences": len(hs),
                            "bleu": round(corpus_bleu(hs, rs, lowercase=True), 2),
                            "bleu_cased": round(corpus_bleu(hs, rs), 2)})
    return {
        "bleu": round(corpus_bleu(hyps, refs, lowercase=True), 2),
        "bleu_cased": round(corpus_bleu(hyps, refs), 2),
        "by_length": buckets,
    }, hyps


def lr_at(step, total, a):
    """Linear warm-up to --lr over --warmup steps (at most a fifth of all steps), then cosine down to lr * --lr-floor."""
    warmup = min(a.warmup, max(1, total // 5))
    if step < warmup:
        return a.lr * (step + 1) / warmup
    p = min(1.0, (step - warmup) / max(1, total - warmup))
    return a.lr * (a.lr_floor + (1 - a.lr_floor) * 0.5 * (1 + math.cos(math.pi * p)))


def init_from(model, path, src_vocab, tgt_vocab):
    """Loads an exported file's weights into `model` (float16-stored ones widened); the file must
    have this model's kind and vocabularies. Returns what the card records about it."""
    import hashlib

    import onnx
    from bench_torch import load
    meta = {p.key: p.value for p in onnx.load(path).metadata_props}
    assert meta["al.attention"] == model.kind, f"{path} is a {meta['al.attention']} model"
    assert json.loads(meta["al.src_vocab"]) == src_vocab and json.loads(meta["al.tgt_vocab"]) == tgt_vocab, "vocabulary differs"
    previous, _ = load(path)
    model.load_state_dict(previous.state_dict())
    card = json.loads(meta["al.model_card"])["training"]
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    return {"file": os.path.basename(path), "sha256": digest, "epochs": card.get("epochs"),
            "cpu_minutes": card.get("cpu_minutes"), "bleu": json.loads(meta["al.test_bleu"]).get("bleu")}


def window_at(step, steps_per_epoch, a):
    """The half-window D while training: --window-start narrowing linearly to --window over the
    first --window-anneal epochs, then --window. A wide window early lets p_t learn where to look
    (outside the window p_t gets no gradient); every epoch that is averaged and exported uses --window."""
    if not a.window_start or a.window_start <= a.window:
        return a.window
    f = min(1.0, step / max(1.0, a.window_anneal * steps_per_epoch))
    return a.window_start + (a.window - a.window_start) * f


def guide_at(step, steps_per_epoch, a):
    """--p-guide's weight at this step: linear from --p-guide to 0 over --p-guide-epochs; the
    epochs after it (the averaged and exported ones among them) train on the translation loss only."""
    if not a.p_guide:
        return 0.0
    return a.p_guide * max(0.0, 1.0 - step / max(1.0, a.p_guide_epochs * steps_per_epoch))


def setup(a):
    if a.tiny:
        a.emb, a.hid, a.dec, a.epochs, a.limit, a.average = 16, 16, 32, 2, 3000, 1
        if a.kind == "transformer":
            # Two epochs end inside the warm-up and leave a transformer repeating one word; twelve
            # give a fixture that stops by itself and attends differently per head (~1 CPU minute).
            a.d_model, a.heads, a.layers, a.ffn, a.max_target, a.epochs = 32, 2, 2, 64, 64, 12
    name = a.name or f"{a.pair}-{a.kind}"
    cfg = data.PAIRS[a.pair]
    corpus = data.load_pair(a.pair)
    train = corpus["train"][: a.limit] if a.limit else corpus["train"]
    merges = {"src": 200, "tgt": 200} if a.tiny else None
    src_spec, src_vocab, tgt_spec, tgt_vocab = data.tokenizers(a.pair, train, a.min_freq, a.max_vocab, merges)
    return name, cfg, corpus, train, src_spec, src_vocab, tgt_spec, tgt_vocab


def main():
    a = parse()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    random.seed(a.seed)
    name, cfg, corpus, train, src_spec, src_vocab, tgt_spec, tgt_vocab = setup(a)
    si = {w: i for i, w in enumerate(src_vocab)}
    ti = {w: i for i, w in enumerate(tgt_vocab)}
    enc_train = [(data.encode(s, src_spec, si, a.max_len), data.encode(t, tgt_spec, ti, a.max_len)) for s, t in train]
    ratio = sum(len(s) for s, _ in enc_train) / sum(len(t) for _, t in enc_train)
    if a.kind == "transformer":
        from . import transformer
        model = transformer.from_args(a, len(src_vocab), len(tgt_vocab))
    else:
        model = Seq2Seq(a.kind, len(src_vocab), len(tgt_vocab), a.emb, a.hid, a.dec, a.window, ratio, a.dropout,
                        attend_eos=bool(a.attend_eos))
    params = sum(p.numel() for p in model.parameters())
    unk_train = sum(x == data.UNK for s, t in enc_train for x in s + t)
    print(f"{name}: {len(train)} pairs, vocab {len(src_vocab)}/{len(tgt_vocab)}, {params} parameters, "
          f"{unk_train} <unk> in training", flush=True)
    if a.p_align or a.guided_align:
        from . import align
        path = a.align_links if a.align_links and a.align_links != "auto" else os.path.join(align.ALIGNMENTS, f"{a.pair}.links")
        links = align.load(path, train, src_spec, tgt_spec, a.max_len, prefix=bool(a.limit))
        enc_train = [(s, t, l) for (s, t), l in zip(enc_train, links)]
        linked = sum(1 for l in links for js in l if js)
        print(f"links from {path}: {linked} of {sum(len(l) for l in links)} target pieces linked", flush=True)
    enc_val = [(data.encode(s, src_spec, si, a.max_len), data.encode(t, tgt_spec, ti, a.max_len)) for s, t in corpus["val"]]
    opt = torch.optim.Adam(model.parameters(), lr=a.lr)
    ckdir = os.path.join(a.ckpt_dir, name)
    os.makedirs(ckdir, exist_ok=True)
    last = os.path.join(ckdir, "last.pt")
    log, epoch0, minutes0, cpu0 = [], 0, 0.0, 0.0
    init = None
    if a.init:
        init = init_from(model, a.init, src_vocab, tgt_vocab)
        print(f"initialised from {a.init} ({init['sha256'][:12]})", flush=True)
    if a.resume and os.path.exists(last):
        ck = torch.load(last, weights_only=False)
        assert ck["src_vocab"] == src_vocab and ck["tgt_vocab"] == tgt_vocab, "vocabulary changed"
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        torch.set_rng_state(ck["torch_rng"])
        random.setstate(ck["py_rng"])
        log, epoch0, minutes0 = ck["log"], ck["epoch"], ck["minutes"]
        cpu0 = ck.get("cpu_minutes", minutes0)
        print(f"resumed after epoch {epoch0} ({minutes0:.1f} training minutes so far)", flush=True)
    steps_per_epoch = math.ceil(len(enc_train) / a.batch)
    total = steps_per_epoch * a.epochs
    if a.stage in ("all", "train"):
        t0, c0 = time.time(), time.process_time()
        for epoch in range(epoch0, a.epochs):
            model.train()
            tot, n, aux_tot = 0.0, 0, 0.0
            te = time.time()
            for k, batch in enumerate(data.batches(enc_train, a.batch, seed=a.seed * 1000 + epoch)):
                src, mask, tin, tout = batch[:4]
                for g in opt.param_groups:
                    g["lr"] = lr_at(epoch * steps_per_epoch + k, total, a)
                if a.kind.startswith("local"):
                    model.window = window_at(epoch * steps_per_epoch + k, steps_per_epoch, a)
                logits = model(src, mask, tin)
                loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tout.reshape(-1), ignore_index=0,
                                       label_smoothing=0.1)
                guide = guide_at(epoch * steps_per_epoch + k, steps_per_epoch, a)
                if guide > 0 and a.kind == "local-p":
                    loss = loss + guide * models.diagonal_guide(model.positions, mask, tout, bool(a.attend_eos))
                if a.p_align and a.kind == "local-p":
                    w = a.p_align * (1 - (1 - a.p_align_floor) * (epoch * steps_per_epoch + k) / max(1, total))
                    aux = align.position_loss(model.positions, batch[4])
                    loss = loss + w * aux
                    aux_tot += aux.item()
                if a.guided_align:
                    if a.kind == "transformer":
                        gl, gh = (int(x) - 1 for x in a.guided_head.split(":"))
                        att = model.cross_attention[gl][:, gh]
                    else:
                        att = model.attention
                    aux = align.attention_ce(att, batch[4])
                    loss = loss + a.guided_align * aux
                    aux_tot += aux.item()
                opt.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
                tot += loss.item()
                n += 1
                if a.log_every and n % a.log_every == 0:
                    p_mean = float(model.positions.mean()) if getattr(model, "positions", None) is not None else None
                    print(json.dumps({"batch": n, "loss": round(tot / n, 4), "mean_p": p_mean and round(p_mean, 2)}), flush=True)
                if a.max_steps and n >= a.max_steps:
                    dt = time.time() - te
                    print(f"timing: {n} batches in {dt:.1f}s -> {dt / n * steps_per_epoch / 60:.2f} min/epoch "
                          f"({steps_per_epoch} batches)", flush=True)
                    return
            model.eval()
            if a.kind.startswith("local"):
                model.window = window_at((epoch + 1) * steps_per_epoch, steps_per_epoch, a)
            with torch.no_grad():
                vl, vn = 0.0, 0
                for src, mask, tin, tout in data.batches(enc_val, 200, shuffle=False):
                    logits = model(src, mask, tin)
                    vl += F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tout.reshape(-1), ignore_index=0,
                                          reduction="sum").item()
                    vn += (tout != 0).sum().item()
            minutes = minutes0 + (time.time() - t0) / 60
            cpu = cpu0 + (time.process_time() - c0) / 60
            row = {"epoch": epoch + 1, "train_loss": round(tot / n, 4), "val_loss": round(vl / vn, 4),
                   **({"align_loss": round(aux_tot / n, 4)} if a.p_align or a.guided_align else {}),
                   "lr_end": round(opt.param_groups[0]["lr"], 6), "minutes": round(minutes, 2),
                   **({"window": round(model.window, 3)} if a.kind.startswith("local") else {}),
                   "cpu_minutes": round(cpu, 2)}
            log.append(row)
            print(json.dumps(row), flush=True)
            torch.save(model.state_dict(), os.path.join(ckdir, f"epoch-{epoch + 1}.pt"))
            tmp = last + ".tmp"
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "torch_rng": torch.get_rng_state(),
                        "py_rng": random.getstate(), "log": log, "epoch": epoch + 1, "minutes": minutes, "cpu_minutes": cpu,
                        "src_vocab": src_vocab, "tgt_vocab": tgt_vocab, "init": init}, tmp)
            os.replace(tmp, last)
            if a.stop_after_epoch and epoch + 1 >= a.stop_after_epoch:
                return
        if a.stage == "train":
            return
    ck = torch.load(last, weights_only=False)
    log, done, train_minutes = ck["log"], ck["epoch"], ck["minutes"]
    train_cpu = ck.get("cpu_minutes")
    if train_cpu is None and os.path.exists(os.path.join(ckdir, "cpu_minutes.txt")):
        with open(os.path.join(ckdir, "cpu_minutes.txt")) as f:  # measured from /proc by a watcher
            train_cpu = float(f.read())
    if train_cpu is None:
        train_cpu = train_minutes
    assert done == a.epochs, f"only {done} of {a.epochs} epochs trained; run with --resume --stage train"
    # Average the last N epochs' weights (Vaswani et al. 2017's checkpoint averaging).
    avg_from = max(1, done - a.average + 1)
    states = [torch.load(os.path.join(ckdir, f"epoch-{e}.pt")) for e in range(avg_from, done + 1)]
    model.load_state_dict({k: sum(s[k] for s in states) / len(states) for k in states[0]})
    model.eval()
    # The file stores the weights as float16 (export.store_float16) to keep the zoo small (the tiny
    # test fixtures stay float32); evaluate, export and write the parity fixture with exactly those values.
    float16 = a.kind == "transformer" or not a.tiny
    if float16:
        from .models import round_to_float16
        round_to_float16(model)
    test = corpus["test"][: a.test_limit] if a.test_limit else corpus["test"]
    t1 = time.time()
    greedy_scores, hyps = evaluate(model, test, src_spec, tgt_spec, si, tgt_vocab, beam=1)
    beam_scores, bhyps = evaluate(model, test, src_spec, tgt_spec, si, tgt_vocab, beam=a.beam) if not a.tiny else (None, None)
    print(f"{name}: test BLEU {greedy_scores['bleu']} (cased {greedy_scores['bleu_cased']}) greedy; "
          + (f"beam {a.beam}: {beam_scores['bleu']} (cased {beam_scores['bleu_cased']})" if beam_scores else "")
          + f" [{(time.time() - t1) / 60:.1f} min]", flush=True)
    for h, (s, r) in list(zip(bhyps or hyps, test))[:3]:
        print(f"  {s}\n  -> {h}\n  ref {r}", flush=True)
    unk_test = sum(x == data.UNK for s, _ in test for x in data.encode(s, src_spec, si)[:-1])
    info = {
        "name": name,
        "pair": a.pair,
        "kind": a.kind,
        "cfg": cfg,
        "src_spec": src_spec,
        "tgt_spec": tgt_spec,
        "sizes": {"emb": a.emb, "enc_hidden": a.hid, "dec_hidden": a.dec, "parameters": params,
                  "src_vocab": len(src_vocab), "tgt_vocab": len(tgt_vocab), "min_freq": a.min_freq,
                  "src_merges": len(src_spec.get("merges", [])), "tgt_merges": len(tgt_spec.get("merges", []))},
        "window": a.window if a.kind.startswith("local") else 0,
        "local_m_ratio": ratio,
        "training": {"pairs": len(train), "epochs": a.epochs, "batch": a.batch, "lr": a.lr,
                     "schedule": f"linear warm-up {a.warmup} steps, cosine to {a.lr_floor} x lr"
                     + (f"; local window D narrowed linearly from {a.window_start:g} to {a.window} over the first {a.window_anneal:g} epochs"
                        if a.kind.startswith("local") and a.window_start > a.window else "")
                     + (f"; p_t pulled toward the diagonal by a smooth-L1 loss of weight {a.p_guide:g} decaying to 0 over the"
                        f" first {a.p_guide_epochs:g} epochs (models.diagonal_guide)" if a.kind == "local-p" and a.p_guide else "")
                     + (f"; p_t supervised by the statistical aligner's links (training/align_train.py: the app's IBM 1 +"
                        f" diagonal prior, grow-diag-final-and, on the training split): a smooth-L1 loss of weight {a.p_align:g}"
                        + (" through all of training" if a.p_align_floor == 1 else f" decaying linearly to {a.p_align * a.p_align_floor:g}")
                        + " between p_t and the mean linked source position of each target piece (align.position_loss)"
                        if a.kind == "local-p" and a.p_align else "")
                     + ("; guided alignment (Garg et al. 2019): "
                        + (f"cross-attention head {a.guided_head} (layer:head, from 1)" if a.kind == "transformer" else "the attention")
                        + f" supervised by the statistical aligner's links (training/align_train.py), cross-entropy of weight {a.guided_align:g}"
                        " against the links of the predicted piece made uniform over its linked source pieces (align.attention_ce)"
                        if a.guided_align else "")
                     + (f"; initialised from {ck['init']['file']} (sha256 {ck['init']['sha256'][:12]}…, greedy BLEU {ck['init']['bleu']})"
                        if a.kind == "transformer" and ck.get("init") else ""),
                     "dropout": a.dropout, "averaged_epochs": list(range(avg_from, done + 1)),
                     **({} if a.attend_eos else {"attend_eos": False}),
                     **({"guided_head": a.guided_head, "guided_align": a.guided_align} if a.guided_align and a.kind == "transformer" else {}),
                     **({"guided_align": a.guided_align} if a.guided_align and a.kind != "transformer" else {}),
                     **({"p_align": a.p_align, "p_align_floor": a.p_align_floor} if a.p_align else {}),
                     **({"initialised_from": ck["init"]} if ck.get("init") else {}),
                     "minutes": round(train_minutes, 1), "cpu_minutes": round(train_cpu, 1), "threads": a.threads, "seed": a.seed, "log": log},
        "test": dict(greedy_scores, set=cfg["test_name"], sentences=len(test), decoding="greedy",
                     src_unknown_tokens=unk_test,
                     **({"beam": dict(beam_scores, size=a.beam, length_penalty=1.0)} if beam_scores else {})),
    }
    if a.kind == "transformer":
        from .export_transformer import export_onnx
    else:
        from functools import partial

        from .export import export_onnx as rnn_export
        export_onnx = partial(rnn_export, float16=float16)
    os.makedirs(a.out_dir, exist_ok=True)
    os.makedirs(a.fixture_dir, exist_ok=True)
    export_onnx(model, src_vocab, tgt_vocab, info, os.path.join(a.out_dir, name + ".onnx"),
                os.path.join(a.fixture_dir, name + ".json"), PARITY_SENTENCES[a.pair], with_card=not a.tiny,
                card_path=os.path.join(a.out_dir, name + ".md"))


if __name__ == "__main__":
    main()
