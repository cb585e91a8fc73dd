"""The tokenizer spec shared with the app (src/engine/tokenizer.ts).

The ONNX file carries the spec as JSON in `al.src_tokenizer` / `al.tgt_tokenizer`; both sides
must turn the same text into the same tokens, which test/fixtures/tokenizer-vectors.json (old
word/char specs) and test/fixtures/bpe-tokenizer-vectors.json (joiner/BPE specs) check.

Spec types (see training/README.md, "Tokenizer specs", for the exact rules):

- `{"type": "char"}`: every non-space character is a token; with `"keep_spaces": true` each run
  of spaces between characters is one "\u2581" token (character-level targets need them).
- `{"type": "word"}` (no `joiner` field): the original word tokenizer (kept for old models).
- `{"type": "word", "joiner": "@@"}`: the same words ("units"), but a unit that is written
  against the next one, where the implicit rules below would put a space, carries the joiner
  (`t-shirt` -> `t@@ -@@ shirt`), so detokenizing gives the text back.
- `{"type": "bpe", "joiner": "@@", "end_of_word_suffix": "</w>", "merges": [...]}`: the units of
  the joiner word tokenizer, each split further by byte-pair-encoding merges (Sennrich et al.
  2016); every piece but the last of a unit, and the last one of a joined unit, ends in "@@".
- `{"type": "jieba", "joiner": "@@", "end_of_word_suffix": "</w>", "merges": [...]}`: Chinese
  words as jieba 0.42.1 cuts the normalized text with its dictionary and no HMM
  (`jieba.lcut(text, HMM=False)`; whitespace tokens dropped), each word a unit that is never
  joined, split further by the merges as for `bpe`: a word the merges do not make whole is written
  `高@@ 兴`, so word spans keep it together. The app runs jieba-rs (npm's jieba-wasm) with
  hmm = false, which cuts every Chinese sentence of the corpus the same way
  (test/fixtures/jieba-tokenizer-vectors.json).
"""
import collections
import heapq
import re
import unicodedata

# A unit is a run of letters/digits/underscore, keeping a trailing apostrophe ("l'", "don'") so
# French elisions stay one unit; any other non-space character is a unit of its own.
WORD_RE = re.compile(r"\w+'?|[^\w\s]")
APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})
NO_SPACE_BEFORE = set(".,!?;:)]}%")
NO_SPACE_AFTER = set("([{")
EOW = "</w>"
SPACE_TOKEN = "\u2581"  # what a char tokenizer with keep_spaces writes for a run of spaces


def normalize(text, spec):
    text = unicodedata.normalize("NFKC", text).translate(APOSTROPHES)
    if spec.get("lowercase", True):
        text = text.lower()
    return text


def implicit_glue(prev, nxt):
    """True where detokenizing writes no space between two units without being told."""
    return prev[-1] in NO_SPACE_AFTER or nxt[0] in NO_SPACE_BEFORE


def units(text):
    """Normalized text -> [(unit, joined)]: `joined` = written against the next unit although
    the implicit rule would put a space between them."""
    out = []
    for chunk in text.split():
        us = WORD_RE.findall(chunk)
        for i, u in enumerate(us):
            joined = i + 1 < len(us) and not implicit_glue(u, us[i + 1])
            out.append((u, joined))
    return out


_JIEBA = []


def jieba_words(text):
    """jieba's dictionary-only cut of normalized text, whitespace tokens dropped. (The HMM pass
    for unknown words is off: jieba-rs's HMM cuts 2 of the corpus's 25,524 sentences differently.)"""
    if not _JIEBA:
        import logging

        import jieba
        jieba.setLogLevel(logging.WARNING)
        _JIEBA.append(jieba)
    return [w for w in _JIEBA[0].lcut(text, HMM=False) if w and not w.isspace()]


def units_of(text, spec):
    """The units BPE splits (normalized text): jieba words for "jieba", else `units`."""
    if spec["type"] == "jieba":
        return [(w, False) for w in jieba_words(text)]
    return units(text)


def _ascii_word_char(c):
    return c.isascii() and c.isalnum()


class BPE:
    """Applies merges by rank to one unit (see `segment`). Cached per (unit, joined)."""

    def __init__(self, merges):
        self.ranks = {tuple(m.split(" ")): r for r, m in enumerate(merges)}
        self.cache = {}

    def segment(self, unit, joined):
        key = (unit, joined)
        if key in self.cache:
            return self.cache[key]
        syms = list(unit)
        if not joined:
            syms[-1] += EOW
        while len(syms) > 1:
            best, rank = None, None
            for pair in zip(syms, syms[1:]):
                r = self.ranks.get(pair)
                if r is not None and (rank is None or r < rank):
                    best, rank = pair, r
            if best is None:
                break
            merged, i = [], 0
            while i < len(syms):
                if i + 1 < len(syms) and syms[i] == best[0] and syms[i + 1] == best[1]:
                    merged.append(syms[i] + syms[i + 1])
                    i += 2
                else:
                    merged.append(syms[i])
                    i += 1
            syms = merged
        pieces = [s[: -len(EOW)] if s.endswith(EOW) else s + "@@" for s in syms]
        self.cache[key] = pieces
        return pieces


_BPE = {}


def _bpe(spec):
    key = id(spec["merges"])
    if key not in _BPE:
        _BPE[key] = (spec["merges"], BPE(spec["merges"]))
    return _BPE[key][1]


def tokenize(text, spec):
    text = normalize(text, spec)
    if spec["type"] == "char":
        if spec.get("keep_spaces", False):
            return [SPACE_TOKEN if c == " " else c for c in " ".join(text.split())]
        return [c for c in text if not c.isspace()]
    if spec["type"] == "word" and "joiner" not in spec:
        return WORD_RE.findall(text)
    j = spec.get("joiner", "@@")
    assert j == "@@", "only the @@ joiner is implemented"
    if spec["type"] == "word":
        return [u + j if joined else u for u, joined in units(text)]
    if spec["type"] in ("bpe", "jieba"):
        bpe = _bpe(spec)
        return [p for u, joined in units_of(text, spec) for p in bpe.segment(u, joined)]
    raise ValueError(spec["type"])


def word_spans(tokens, spec):
    """Groups token positions into words: a token ending in the joiner belongs with the next one
    (for the unknown-word replacement, which copies a whole source word)."""
    if spec["type"] == "char" or "joiner" not in spec:
        return [[i] for i in range(len(tokens))]
    j = spec["joiner"]
    spans, cur = [], []
    for i, t in enumerate(tokens):
        cur.append(i)
        if not t.endswith(j):
            spans.append(cur)
            cur = []
    if cur:
        spans.append(cur)
    return spans


def detokenize(tokens, spec):
    if spec["type"] == "char":
        out = "".join(tokens)
        return out.replace(SPACE_TOKEN, " ") if spec.get("keep_spaces", False) else out
    j = spec.get("joiner")
    if spec["type"] == "jieba":
        # Chinese is written without spaces; one space only between two ASCII letters or digits.
        words = "".join(t[: -len(j)] if t.endswith(j) and len(t) > len(j) else t + " " for t in tokens).split(" ")
        out = ""
        for w in (w for w in words if w):
            out += " " + w if out and _ascii_word_char(out[-1]) and _ascii_word_char(w[0]) else w
        return out
    out, glue_next = "", True
    for tok in tokens:
        joined = bool(j) and tok.endswith(j) and len(tok) > len(j)
        text = tok[: -len(j)] if joined else tok
        if not text:
            continue
        glue = (
            glue_next
            or not out
            or (not j and out.endswith("'"))
            or out[-1] in NO_SPACE_AFTER
            or text[0] in NO_SPACE_BEFORE
        )
        out += text if glue else " " + text
        glue_next = joined
    if spec.get("capitalize", False) and out:
        out = out[0].upper() + out[1:]
    return out


def learn_bpe(texts, spec, n_merges, min_count=2):
    """Sennrich et al.'s BPE learning on the units of `texts` (with their joined flags): the most
    frequent adjacent symbol pair is merged, n_merges times or until no pair occurs min_count
    times; ties go to the lexicographically smallest pair. Returns (merges, alphabet)."""
    words = collections.Counter()
    for t in texts:
        for u, joined in units_of(normalize(t, spec), spec):
            words[(u, joined)] += 1
    vocab = []  # [symbols list, count]
    alphabet = collections.Counter()
    for (u, joined), c in sorted(words.items()):
        syms = list(u)
        for ch in syms:
            alphabet[ch] += c
        if not joined:
            syms[-1] += EOW
        vocab.append([syms, c])
    stats = collections.Counter()
    where = collections.defaultdict(set)
    for wi, (syms, c) in enumerate(vocab):
        for p in zip(syms, syms[1:]):
            stats[p] += c
            where[p].add(wi)
    heap = [(-c, p) for p, c in stats.items()]
    heapq.heapify(heap)
    merges = []
    while len(merges) < n_merges and heap:
        negc, pair = heapq.heappop(heap)
        if stats.get(pair, 0) != -negc:
            continue  # stale entry
        if -negc < min_count:
            break
        merges.append(pair)
        a, b = pair
        changed = {}
        for wi in sorted(where.pop(pair, ())):
            syms, c = vocab[wi]
            for p in zip(syms, syms[1:]):
                stats[p] -= c
                changed[p] = True
            new, i = [], 0
            while i < len(syms):
                if i + 1 < len(syms) and syms[i] == a and syms[i + 1] == b:
                    new.append(a + b)
                    i += 2
                else:
                    new.append(syms[i])
                    i += 1
            vocab[wi][0] = new
            for p in zip(new, new[1:]):
                stats[p] += c
                where[p].add(wi)
                changed[p] = True
        stats.pop(pair, None)
        for p in changed:
            if p == pair:
                continue
            if stats.get(p, 0) > 0:
                heapq.heappush(heap, (-stats[p], p))
            else:
                stats.pop(p, None)
    return [f"{a} {b}" for a, b in merges], alphabet


def bpe_vocab(merges, alphabet, min_char_count=1):
    """The pieces in app form: each character of the training alphabet (seen min_char_count
    times) as a final piece `c` and a non-final piece `c@@`, then every merge result in rank order.
    Every piece that `segment` can make from known characters is in it."""
    out, seen = [], set()

    def add(sym):
        piece = sym[: -len(EOW)] if sym.endswith(EOW) else sym + "@@"
        if piece not in seen:
            seen.add(piece)
            out.append(piece)

    for ch, c in sorted(alphabet.items(), key=lambda kv: (-kv[1], kv[0])):
        if c >= min_char_count:
            add(ch + EOW)
            add(ch)
    for m in merges:
        a, b = m.split(" ")
        add(a + b)
    return out
