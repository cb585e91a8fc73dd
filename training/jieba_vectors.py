"""Writes test/fixtures/tokenizers/jieba-corpus-vectors.json: every distinct Chinese sentence of
../shared/datasets/tatoeba-cmn-eng/cmn.txt (the text as in the file) with the pieces the zh-en
source tokenizer makes of it (the `jieba` spec with the merges learned on the clean training
split, exactly as training/train.py learns them), for the vitest test that runs the TypeScript
twin (jieba-wasm) on all of them. Pieces are written space-separated (a piece has no space).

    /usr/bin/python3 training/jieba_vectors.py

Layout: {"spec": <al.src_tokenizer of the zh-en models>, "vocab_size": N, "unknown": [sentences with
a piece outside the vocabulary], "cases": [[text, "piece piece ..."], ...]} (1.9 MB).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attention_lens import data  # noqa: E402
from attention_lens.tokenizer import tokenize  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "test", "fixtures", "tokenizers", "jieba-corpus-vectors.json")


def main():
    corpus = data.load_pair("zh-en")
    spec, vocab, _, _ = data.tokenizers("zh-en", corpus["train"])
    assert spec["type"] == "jieba"
    texts = []
    with open(os.path.join(data.DATA, "tatoeba-cmn-eng", "cmn.txt"), encoding="utf-8-sig") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 2:
                texts.append(parts[1])
    distinct = sorted(set(texts))
    index = set(vocab)
    cases, unknown = [], []
    for t in distinct:
        pieces = tokenize(t, spec)
        assert all(p and " " not in p for p in pieces), t
        if any(p not in index for p in pieces):
            unknown.append(t)
        cases.append([t, " ".join(pieces)])
    body = json.dumps({"spec": spec, "vocab_size": len(vocab), "unknown": unknown, "cases": cases},
                      ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    with open(OUT, "wb") as f:
        f.write(body)
    print(f"{len(cases)} sentences, {len(unknown)} with a piece outside the vocabulary, {len(body) / 1e6:.2f} MB: {OUT}")


if __name__ == "__main__":
    main()
