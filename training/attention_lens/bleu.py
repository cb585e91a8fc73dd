"""Corpus BLEU with sacreBLEU's 13a tokenisation (used for training-time reports; the app's own
implementation is src/engine/bleu.ts and the two are checked against the same cases)."""
import collections
import math
import re

_13A = [
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
]


def tokenize_13a(line):
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    line = f" {line} "
    for rx, sub in _13A:
        line = rx.sub(sub, line)
    return line.split()


def _ngrams(words, n):
    return collections.Counter(tuple(words[i : i + n]) for i in range(len(words) - n + 1))


def corpus_bleu(hyps, refs, lowercase=False):
    matches, totals = [0] * 4, [0] * 4
    hyp_len = ref_len = 0
    for h, r in zip(hyps, refs):
        if lowercase:
            h, r = h.lower(), r.lower()
        hw, rw = tokenize_13a(h), tokenize_13a(r)
        hyp_len += len(hw)
        ref_len += len(rw)
        for n in range(1, 5):
            hc, rc = _ngrams(hw, n), _ngrams(rw, n)
            matches[n - 1] += sum(min(c, rc[g]) for g, c in hc.items())
            totals[n - 1] += max(len(hw) - n + 1, 0)
    if hyp_len == 0:
        return 0.0
    log_p, smooth = 0.0, 1.0
    for m, t in zip(matches, totals):
        if t == 0:
            return 0.0
        if m == 0:  # sacreBLEU's "exp" smoothing
            smooth *= 2
            log_p += math.log(1.0 / (smooth * t))
        else:
            log_p += math.log(m / t)
    bp = 1.0 if hyp_len > ref_len else math.exp(1 - ref_len / hyp_len)
    return 100.0 * bp * math.exp(log_p / 4)
