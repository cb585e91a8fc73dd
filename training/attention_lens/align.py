"""Statistical alignments as a training signal (issue 35).

training/align_train.py writes, per pair, the training split as the tokenizer's units and the app's
statistical aligner's links between them (training/alignments/<pair>.links, Pharaoh, 0-based,
source unit i - target unit j). Here they become links between the model's pieces and two losses:

- `attention_ce`: guided alignment (Garg et al. 2019; Marian's --guided-alignment ce): at the step
  that predicts target piece t, the cross-entropy between the attention a_t and the links of t made
  a distribution (uniform over the source pieces linked to t), averaged over the pieces with links;
- `position_loss`: local-p's p_t against the mean linked source position of piece t (smooth L1 in
  source positions), averaged over the pieces with links.

A target piece's links are those of its unit; a linked source unit contributes all its pieces.
Pieces past --max-len (and the final </s>) have none: the losses skip them.
"""
import os

import torch
import torch.nn.functional as F

from . import TRAINING
from .tokenizer import _bpe, normalize, units_of

ALIGNMENTS = os.path.join(TRAINING, "alignments")


def unit_words(text, spec):
    """The units the aligner sees for one side: tokenizer.units_of on the normalised text."""
    return [u for u, _ in units_of(normalize(text, spec), spec)]


def piece_units(text, spec):
    """For each piece of tokenize(text, spec) (a bpe or jieba spec with its merges), the index of
    the unit it was cut from."""
    bpe = _bpe(spec)
    out = []
    for k, (u, joined) in enumerate(units_of(normalize(text, spec), spec)):
        out += [k] * len(bpe.segment(u, joined))
    return out


def read_links(path, one_based=False):
    """A Pharaoh file -> per line a list of (i, j, sure), 0-based."""
    off = 1 if one_based else 0
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            row = []
            for item in line.split():
                sep = "-" if "-" in item else "p"
                i, j = item.split(sep)
                row.append((int(i) - off, int(j) - off, sep == "-"))
            out.append(row)
    return out


def aer(gold, hyp):
    """(AER, precision, recall) in percent over a set, counts summed first (src/engine/align/aer.ts)."""
    h = s = hs = hp = 0
    for g, a in zip(gold, hyp):
        sure = {(i, j) for i, j, k in g if k}
        possible = {(i, j) for i, j, _ in g}
        a = {(i, j) for i, j, _ in a}
        h, s = h + len(a), s + len(sure)
        hs, hp = hs + len(a & sure), hp + len(a & possible)
    return (100 * (1 - (hs + hp) / max(1, h + s)), 100 * hp / max(1, h), 100 * hs / max(1, s))


def piece_links(src, tgt, src_spec, tgt_spec, links, max_len=None):
    """Unit links of one pair -> for each target piece t (the first max_len), the sorted source
    piece positions (< max_len) linked to it."""
    su, tu = piece_units(src, src_spec), piece_units(tgt, tgt_spec)
    if max_len:
        su, tu = su[:max_len], tu[:max_len]
    src_of_unit = {}
    for p, u in enumerate(su):
        src_of_unit.setdefault(u, []).append(p)
    by_tgt_unit = {}
    for i, j, _ in links:
        by_tgt_unit.setdefault(j, set()).update(src_of_unit.get(i, ()))
    return [sorted(by_tgt_unit.get(u, ())) for u in tu]


def load(path, pairs, src_spec, tgt_spec, max_len, prefix=False):
    """piece_links for every training pair, from training/alignments/<pair>.links (written by
    training/align_train.py for exactly these pairs: the line count and unit counts are checked;
    `prefix`: the pairs are the file's first ones, as with train.py --limit)."""
    rows = read_links(path)
    if prefix:
        rows = rows[: len(pairs)]
    assert len(rows) == len(pairs), f"{path} has {len(rows)} lines for {len(pairs)} training pairs: run training/align_train.py"
    out = []
    for (s, t), links in zip(pairs, rows):
        if links:
            ns, nt = len(unit_words(s, src_spec)), len(unit_words(t, tgt_spec))
            assert max(i for i, _, _ in links) < ns and max(j for _, j, _ in links) < nt, f"{path}: links do not fit {s!r} / {t!r}"
        out.append(piece_links(s, t, src_spec, tgt_spec, links, max_len))
    return out


def link_matrix(rows, T, S):
    """[B,T,S] 0/1 from per-pair lists of per-target-piece source positions."""
    m = torch.zeros(len(rows), T, S)
    for b, r in enumerate(rows):
        for t, js in enumerate(r[:T]):
            for j in js:
                if j < S:
                    m[b, t, j] = 1.0
    return m


def attention_ce(attention, links, eps=1e-6):
    """Guided-alignment cross-entropy: -(1/N) sum_t sum_j q_tj log(a_tj + eps), q_t = links_t / |links_t|,
    N the number of target steps with at least one link (attention and links [B,T,S])."""
    n = links.sum(2, keepdim=True)
    has = (n > 0).squeeze(2).float()
    q = links / n.clamp(min=1)
    ce = -(q * torch.log(attention + eps)).sum(2)
    return (ce * has).sum() / has.sum().clamp(min=1)


def position_target(links):
    """The mean linked source position of each target step [B,T] and which steps have links [B,T]."""
    n = links.sum(2)
    pos = torch.arange(links.shape[2], dtype=links.dtype)
    return (links * pos).sum(2) / n.clamp(min=1), (n > 0).float()


def position_loss(positions, links):
    """Smooth-L1 (beta 1) distance in source positions between local-p's p_t [B,T] and
    position_target, averaged over the steps with links."""
    target, has = position_target(links)
    d = F.smooth_l1_loss(positions, target, reduction="none", beta=1.0)
    return (d * has).sum() / has.sum().clamp(min=1)
