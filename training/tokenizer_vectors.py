"""Writes test/fixtures/tokenizer-vectors.json: text -> tokens -> ids -> detokenized text, from the
Python tokenizer and the bundled vocabularies, for the vitest test of the TypeScript twin."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data  # noqa: E402
from tokenizer import detokenize, tokenize  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
TEXTS = [
    "A man in an orange hat starring at something.",
    "Two young, White males are outside near many bushes.",
    "L'homme d'affaires regarde aujourd'hui l’écran.",
    "Un chien court dans l'herbe (près d'une clôture) !",
    "Don't stop: it's 3.5 km, 20% uphill; ok?",
    "Café crème, naïve façade — Œuvre «déjà vu».",
    "ＦＵＬＬ－ＷＩＤＴＨ ｔｅｘｔ ａｎｄ ①②",
    "我很高兴见到你。",
    "他每天早上喝一杯咖啡，然后去上班。",
    "Tom 在 2024 年买了 iPhone！",
    "  spaces\tand\nnewlines  ",
    "emoji 🙂 and zero\u200bwidth",
    "ΟΔΟΣ Straße İstanbul",
    "",
]


def main():
    corpus = {"en-fr": data.load_pair("en-fr"), "zh-en": data.load_pair("zh-en")}
    cases = []
    for pair, cfg in data.PAIRS.items():
        train = corpus[pair]["train"]
        for side, spec in (("src", cfg["src_tok"]), ("tgt", cfg["tgt_tok"])):
            texts = [p[0 if side == "src" else 1] for p in train]
            vocab = data.build_vocab(texts, spec, 3, 6000)
            index = {w: i for i, w in enumerate(vocab)}
            for text in TEXTS + texts[:40]:
                toks = tokenize(text, spec)
                cases.append({"pair": pair, "side": side, "spec": spec, "text": text, "tokens": toks,
                              "ids": [index.get(t, data.UNK) for t in toks],
                              "detok": detokenize(toks, spec)})
            cases.append({"pair": pair, "side": side, "spec": spec, "vocab_head": vocab[:50]})
    out = os.path.join(ROOT, "test", "fixtures", "tokenizer-vectors.json")
    with open(out, "w", encoding="utf-8") as f:
        json.dump(cases, f, ensure_ascii=False, indent=0)
    print(f"wrote {len(cases)} cases to {out}")


if __name__ == "__main__":
    main()
