"""The Python tokenizer against the vectors the TypeScript tokenizer is tested with
(test/fixtures/bpe-tokenizer-vectors.json): text -> pieces -> ids -> text, every case of every spec."""
import json
import os

import pytest
from conftest import REPO

from attention_lens.tokenizer import detokenize, tokenize

with open(os.path.join(REPO, "test", "fixtures", "bpe-tokenizer-vectors.json"), encoding="utf-8") as f:
    VECTORS = json.load(f)
# jieba is imported by the zh-en source spec only: where it is missing those cases are skipped, by name.
SPECS = sorted(VECTORS["specs"])


@pytest.mark.parametrize("name", SPECS)
def test_round_trip(name):
    entry = VECTORS["specs"][name]
    spec, vocab = entry["spec"], entry["vocab"]
    if spec["type"] == "jieba":
        pytest.importorskip("jieba")
    index = {w: i for i, w in enumerate(vocab)} if vocab else None
    cases = [c for c in VECTORS["cases"] if c["spec"] == name]
    assert cases
    for c in cases:
        tokens = tokenize(c["text"], spec)
        assert tokens == c["tokens"], c["text"]
        if index is not None:
            assert [index.get(t, 1) for t in tokens] == c["ids"], c["text"]
        assert detokenize(tokens, spec) == c["detok"], c["text"]
