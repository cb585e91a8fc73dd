"""The tokenizer spec shared with the app (src/engine/tokenizer.ts).

The ONNX file carries the spec as JSON in `al.src_tokenizer` / `al.tgt_tokenizer`; both sides
must turn the same text into the same tokens, which test/fixtures/tokenizer-vectors.json checks.
"""
import re
import unicodedata

# A word is a run of letters/digits/underscore, keeping a trailing apostrophe ("l'", "don'") so
# French elisions stay one token; any other non-space character is a token of its own.
WORD_RE = re.compile(r"\w+'?|[^\w\s]")
APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})
NO_SPACE_BEFORE = set(".,!?;:)]}%")
NO_SPACE_AFTER = set("([{")


def normalize(text, spec):
    text = unicodedata.normalize("NFKC", text).translate(APOSTROPHES)
    if spec.get("lowercase", True):
        text = text.lower()
    return text


def tokenize(text, spec):
    text = normalize(text, spec)
    if spec["type"] == "char":
        return [c for c in text if not c.isspace()]
    return WORD_RE.findall(text)


def detokenize(tokens, spec):
    if spec["type"] == "char":
        return "".join(tokens)
    out = ""
    for tok in tokens:
        glue = (
            not out
            or out.endswith("'")
            or out[-1] in NO_SPACE_AFTER
            or tok[0] in NO_SPACE_BEFORE
        )
        out += tok if glue else " " + tok
    if spec.get("capitalize", False) and out:
        out = out[0].upper() + out[1:]
    return out
