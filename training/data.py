"""Corpora from ../shared/datasets, vocabularies and batches."""
import collections
import gzip
import os
import random

import torch

from tokenizer import tokenize

DATA = os.environ.get(
    "AL_DATASETS",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "datasets"),
)
PAD, UNK, BOS, EOS = 0, 1, 2, 3
SPECIALS = ["<pad>", "<unk>", "<s>", "</s>"]

PAIRS = {
    "en-fr": {
        "src_lang": "en",
        "tgt_lang": "fr",
        "src_tok": {"type": "word", "lowercase": True},
        "tgt_tok": {"type": "word", "lowercase": True, "capitalize": True},
        "test_name": "test_2016_flickr",
        "training_data": "Multi30K task 1 (Elliott et al., 2016; French: Elliott et al., 2017), train split, 29,000 pairs",
        "licence": "Multi30K: for research and teaching use; English side from Flickr30K captions",
    },
    "zh-en": {
        "src_lang": "zh",
        "tgt_lang": "en",
        "src_tok": {"type": "char", "lowercase": True},
        "tgt_tok": {"type": "word", "lowercase": True, "capitalize": True},
        "test_name": "tatoeba-cmn-eng test (seed 13, 1,000 pairs)",
        "training_data": "Tatoeba cmn-eng sentence pairs (tatoeba.org), seed-13 split: train / 500 val / 1,000 test",
        "licence": "CC-BY 2.0 (France), Tatoeba project; per-sentence attribution in cmn.txt column 3",
    },
}


def _lines(path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [l.rstrip("\n") for l in f]


def load_pair(pair):
    """Returns {"train": [(src, tgt)], "val": [...], "test": [...]} of raw strings."""
    if pair == "en-fr":
        m = os.path.join(DATA, "multi30k")
        out = {}
        for split, name in (("train", "train"), ("val", "val"), ("test", "test_2016_flickr")):
            out[split] = list(zip(_lines(f"{m}/{name}.en.gz"), _lines(f"{m}/{name}.fr.gz")))
        return out
    if pair == "zh-en":
        rows = []
        with open(os.path.join(DATA, "tatoeba-cmn-eng", "cmn.txt"), encoding="utf-8-sig") as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) >= 2:
                    rows.append((parts[1], parts[0]))
        rng = random.Random(13)
        rng.shuffle(rows)
        return {"test": rows[:1000], "val": rows[1000:1500], "train": rows[1500:]}
    raise ValueError(pair)


def build_vocab(texts, spec, min_freq, max_size):
    counts = collections.Counter(t for s in texts for t in tokenize(s, spec))
    words = [w for w, c in counts.most_common() if c >= min_freq][: max_size - len(SPECIALS)]
    return SPECIALS + words


def encode(text, spec, index, max_tokens=None):
    ids = [index.get(t, UNK) for t in tokenize(text, spec)]
    if max_tokens:
        ids = ids[:max_tokens]
    return ids + [EOS]


def batches(pairs, batch_size, shuffle=True, seed=0):
    """Length-bucketed batches of (src_ids, src_mask, tgt_in, tgt_out) tensors."""
    order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]))
    chunks = [order[i : i + batch_size] for i in range(0, len(order), batch_size)]
    if shuffle:
        random.Random(seed).shuffle(chunks)
    for chunk in chunks:
        srcs = [pairs[i][0] for i in chunk]
        tgts = [pairs[i][1] for i in chunk]
        S = max(len(s) for s in srcs)
        T = max(len(t) for t in tgts)
        src = torch.zeros(len(chunk), S, dtype=torch.long)
        tin = torch.zeros(len(chunk), T, dtype=torch.long)
        tout = torch.zeros(len(chunk), T, dtype=torch.long)
        for b, (s, t) in enumerate(zip(srcs, tgts)):
            src[b, : len(s)] = torch.tensor(s)
            tin[b, : len(t)] = torch.tensor([BOS] + t[:-1])
            tout[b, : len(t)] = torch.tensor(t)
        yield src, (src != PAD).float(), tin, tout
