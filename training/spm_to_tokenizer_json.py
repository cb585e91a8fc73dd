"""Converts a SentencePiece model (unigram or BPE) to a Hugging Face `tokenizer.json`.

    /usr/bin/python3 training/spm_to_tokenizer_json.py m.model tokenizer.json

The result is what the app runs for a tokenizer spec `{"type": "hf", "json": ...}`
(docs/model-format.md, "Tokenizers"), with `@huggingface/tokenizers`; it follows the layout of
transformers' own converter (convert_slow_tokenizer.SpmConverter), so the Rust `tokenizers`
library reads it too. Two choices differ from that converter, both so the file stays small and
every component runs the same in JavaScript and Rust:

- the normalizer is written out as plain steps instead of SentencePiece's 240 kB
  `precompiled_charsmap`: for `nmt_nfkc` the control characters it drops, the whitespace
  characters it turns into a space, then NFKC; then `remove_extra_whitespaces` as a strip and a
  collapse of runs of spaces;
- nothing else (no post-processor): the app appends `</s>` itself.

Control pieces (`<s>`, `</s>`) and `<unk>` become special added tokens, user-defined pieces plain
added tokens, as in transformers. Needs only Debian's python3-sentencepiece (and its protobuf).
"""
import json
import sys

from sentencepiece import sentencepiece_model_pb2 as pb

NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
# SentencePiece's nmt_nfkc rule (normalizer/builder.cc, BuildNmtNFKCMap) on top of NFKC.
NMT_DROP = "[\u0001-\u0008\u000b\u000e-\u001f\u007f\u008f\u009f]"
NMT_SPACE = "[\u0009\u000a\u000c\u000d\u1680\u200b-\u200f\u2028\u2029\u2581\ufeff\ufffd]"


def replace(pattern, content):
    return {"type": "Replace", "pattern": {"Regex": pattern}, "content": content}


def normalizer(spec):
    steps = []
    if spec.name in ("nmt_nfkc", "nmt_nfkc_cf"):
        steps += [replace(NMT_DROP, ""), replace(NMT_SPACE, " ")]
    if spec.name in ("nmt_nfkc", "nfkc", "nmt_nfkc_cf", "nfkc_cf"):
        steps.append({"type": "NFKC"})
    elif spec.name != "identity":
        raise SystemExit(f"normalization rule {spec.name!r} is not supported (nmt_nfkc, nfkc, *_cf, identity are)")
    if spec.name.endswith("_cf"):
        steps.append({"type": "Lowercase"})  # Unicode case folding, as far as lower-casing reaches
    if spec.remove_extra_whitespaces:
        steps += [{"type": "Strip", "strip_left": True, "strip_right": True}, replace(" {2,}", " ")]
    return {"type": "Sequence", "normalizers": steps}


def convert(proto):
    if proto.trainer_spec.byte_fallback:
        raise SystemExit("byte_fallback models are not supported by this converter")
    pieces = list(proto.pieces)
    unk_id = next(i for i, p in enumerate(pieces) if p.type == UNKNOWN)
    prepend = "always" if proto.normalizer_spec.add_dummy_prefix else "never"
    kind = proto.trainer_spec.model_type
    if kind == pb.TrainerSpec.UNIGRAM:
        model = {"type": "Unigram", "unk_id": unk_id, "vocab": [[p.piece, p.score] for p in pieces], "byte_fallback": False}
    elif kind == pb.TrainerSpec.BPE:
        vocab = {p.piece: i for i, p in enumerate(pieces)}
        model = {
            "type": "BPE",
            "dropout": None,
            "unk_token": pieces[unk_id].piece,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": True,
            "byte_fallback": False,
            "ignore_merges": False,
            "vocab": vocab,
            "merges": bpe_merges(pieces, vocab),
        }
    else:
        raise SystemExit("only unigram and BPE SentencePiece models can be converted")
    added = [
        {"id": i, "content": p.piece, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": p.type != USER_DEFINED}
        for i, p in enumerate(pieces)
        if p.type in (UNKNOWN, CONTROL, USER_DEFINED)
    ]
    meta = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": prepend, "split": True}
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": normalizer(proto.normalizer_spec),
        "pre_tokenizer": meta,
        "post_processor": None,
        "decoder": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": prepend, "split": True},
        "model": model,
    }


def bpe_merges(pieces, vocab):
    """SentencePiece's BPE merges the adjacent pair whose concatenation is the best-scored piece;
    as a merge list: every split of every normal piece into two pieces, best piece first (as
    transformers' SentencePieceExtractor does)."""
    merges = []
    for i, p in enumerate(pieces):
        if p.type != NORMAL:
            continue
        local = [(p.piece[:k], p.piece[k:]) for k in range(1, len(p.piece)) if p.piece[:k] in vocab and p.piece[k:] in vocab]
        local.sort(key=lambda lr: (vocab[lr[0]], vocab[lr[1]]))
        merges += [(-p.score, i, lr) for lr in local]
    merges.sort(key=lambda m: (m[0], m[1]))
    return [[l, r] for _, _, (l, r) in merges]


def main():
    src, dst = sys.argv[1:3]
    proto = pb.ModelProto()
    with open(src, "rb") as f:
        proto.ParseFromString(f.read())
    with open(dst, "w", encoding="utf-8") as f:
        json.dump(convert(proto), f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
