"""Corpora from ../shared/datasets, tokenizers, vocabularies and batches."""
import collections
import gzip
import os
import random
import unicodedata

import torch

from .tokenizer import bpe_vocab, learn_bpe, tokenize

from . import DATASETS as DATA
PAD, UNK, BOS, EOS = 0, 1, 2, 3
SPECIALS = ["<pad>", "<unk>", "<s>", "</s>"]
ZH_TEST, ZH_VAL = 1000, 500
ZH_SRC_MERGES = int(os.environ.get("AL_ZH_SRC_MERGES", "3000"))

# `src_tok` / `tgt_tok` name the tokenizer; a "bpe" spec gets its merges learned on the training
# split (`merges` merges) by `tokenizers()`.
PAIRS = {
    "en-fr": {
        "src_lang": "en",
        "tgt_lang": "fr",
        "src_tok": {"type": "bpe", "lowercase": True, "joiner": "@@", "end_of_word_suffix": "</w>"},
        "tgt_tok": {"type": "bpe", "lowercase": True, "capitalize": True, "joiner": "@@", "end_of_word_suffix": "</w>"},
        "merges": {"src": 5000, "tgt": 5000},
        "test_name": "test_2016_flickr",
        "training_data": "Multi30K task 1 (Elliott et al., 2016; French: Elliott et al., 2017), train split, 29,000 pairs",
        "licence": "Multi30K: for research and teaching use; English side from Flickr30K captions",
    },
    "zh-en": {
        "src_lang": "zh",
        "tgt_lang": "en",
        "src_tok": {"type": "jieba", "lowercase": True, "joiner": "@@", "end_of_word_suffix": "</w>"},
        "tgt_tok": {"type": "bpe", "lowercase": True, "capitalize": True, "joiner": "@@", "end_of_word_suffix": "</w>"},
        "merges": {"src": ZH_SRC_MERGES, "tgt": 3000},
        "test_name": "tatoeba-cmn-eng clean test (distinct Chinese sentences, seed 13, 1,000 pairs)",
        "training_data": "Tatoeba cmn-eng sentence pairs (tatoeba.org), split by distinct Chinese sentence (seed 13): train / 500 val / 1,000 test sources",
        "licence": "CC-BY 2.0 (France), Tatoeba project; per-sentence attribution in cmn.txt column 3",
    },
}


def _lines(path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [l.rstrip("\n") for l in f]


def zh_key(s):
    """What makes two Chinese sources "the same sentence" for the split."""
    return unicodedata.normalize("NFKC", s).strip()


def split_zh(rows, seed=13):
    """Splits (zh, en) pairs by distinct Chinese sentence: the distinct sources (in first-seen
    order) are shuffled with `seed`; the first 1,000 are the test sources (one pair each: the first
    translation in the file), the next 500 validation (all their pairs), the rest training."""
    groups = collections.OrderedDict()
    for zh, en in rows:
        groups.setdefault(zh_key(zh), []).append((zh, en))
    keys = list(groups)
    random.Random(seed).shuffle(keys)
    test = [groups[k][0] for k in keys[:ZH_TEST]]
    val = [p for k in keys[ZH_TEST : ZH_TEST + ZH_VAL] for p in groups[k]]
    train = [p for k in keys[ZH_TEST + ZH_VAL :] for p in groups[k]]
    check_disjoint({"train": train, "val": val, "test": test})
    return {"test": test, "val": val, "train": train}


def check_disjoint(splits):
    seen = {}
    for name, pairs in splits.items():
        for k in {zh_key(s) for s, _ in pairs}:
            assert k not in seen, f"source sentence {k!r} is in both {seen[k]} and {name}"
            seen[k] = name


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
        return split_zh(rows)
    raise ValueError(pair)


def build_vocab(texts, spec, min_freq, max_size):
    counts = collections.Counter(t for s in texts for t in tokenize(s, spec))
    words = [w for w, c in counts.most_common() if c >= min_freq][: max_size - len(SPECIALS)]
    return SPECIALS + words


def tokenizers(pair, train, min_freq=3, max_vocab=8000, merges=None):
    """The (src_spec, src_vocab, tgt_spec, tgt_vocab) of a pair, learned on its training split.
    BPE: merges learned by tokenizer.learn_bpe; vocabulary = specials + tokenizer.bpe_vocab."""
    cfg = PAIRS[pair]
    out = []
    for side, col in (("src", 0), ("tgt", 1)):
        spec = dict(cfg[f"{side}_tok"])
        texts = [p[col] for p in train]
        if spec["type"] in ("bpe", "jieba"):
            n = (merges or cfg["merges"])[side]
            m, alphabet = learn_bpe(texts, spec, n)
            spec["merges"] = m
            vocab = SPECIALS + bpe_vocab(m, alphabet)
        else:
            vocab = build_vocab(texts, spec, min_freq, max_vocab)
        out += [spec, vocab]
    return tuple(out)


def encode(text, spec, index, max_tokens=None):
    ids = [index.get(t, UNK) for t in tokenize(text, spec)]
    if max_tokens:
        ids = ids[:max_tokens]
    return ids + [EOS]


def source_batches(texts, spec, index, batch=100):
    """Test sources, shortest first, `batch` at a time: (indices into texts, id lists, padded ids
    [B,S], mask [B,S]), each id list ending in </s> (decoding and measuring share this)."""
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    for k in range(0, len(order), batch):
        idx = order[k : k + batch]
        enc = [encode(texts[i], spec, index, 200) for i in idx]
        src = torch.zeros(len(idx), max(len(e) for e in enc), dtype=torch.long)
        for b, e in enumerate(enc):
            src[b, : len(e)] = torch.tensor(e)
        yield idx, enc, src, (src != PAD).float()


def batches(pairs, batch_size, shuffle=True, seed=0, pool=50):
    """Length-bucketed batches of (src_ids, src_mask, tgt_in, tgt_out) tensors. Training batches
    are formed anew each epoch (seed = seed + epoch): shuffle, sort pools of `pool` batches by
    source length, cut, shuffle the batches. Pairs with a third item (per target piece, the linked
    source positions; align.piece_links) also yield their links as a fifth tensor [B,T,S]
    (align.link_matrix); the batches are the same either way."""
    if shuffle:
        rng = random.Random(seed)
        order = list(range(len(pairs)))
        rng.shuffle(order)
        size = batch_size * pool
        order = [i for k in range(0, len(order), size)
                 for i in sorted(order[k : k + size], key=lambda i: (len(pairs[i][0]), len(pairs[i][1])))]
        chunks = [order[i : i + batch_size] for i in range(0, len(order), batch_size)]
        rng.shuffle(chunks)
    else:
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]))
        chunks = [order[i : i + batch_size] for i in range(0, len(order), batch_size)]
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
        if len(pairs[chunk[0]]) > 2:
            from .align import link_matrix
            yield src, (src != PAD).float(), tin, tout, link_matrix([pairs[i][2] for i in chunk], T, S)
        else:
            yield src, (src != PAD).float(), tin, tout
