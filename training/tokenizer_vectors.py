"""Writes test/fixtures/bpe-tokenizer-vectors.json: text -> tokens -> ids -> detokenized text, from
the Python tokenizer with the specs and vocabularies the zoo-next models use (BPE learned on each
pair's training split, exactly as training/train.py learns it), for the vitest test of the
TypeScript twin. Also checks that tokenize + detokenize gives back every test reference (BLEU
100.0 with training/attention_lens/bleu.py, case-insensitive).

(The older test/fixtures/tokenizer-vectors.json, for the `word` spec without a joiner and the
bundled models' vocabularies, is frozen: its generator read the old seed-13 zh-en split.)

File layout:
  {"specs": {ID: {"spec": <tokenizer spec as in al.*_tokenizer>, "vocab": [...] or null}},
   "cases": [{"spec": ID, "text", "tokens", "ids" (null without a vocab), "detok"}]}
"""
import json
import os
import re
import sys
import unicodedata

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attention_lens import data  # noqa: E402
from attention_lens.bleu import corpus_bleu  # noqa: E402
from attention_lens.tokenizer import detokenize, tokenize  # noqa: E402

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
    # hyphens, apostrophes, numbers
    "A boy in a t-shirt and a baseball cap is jumping.",
    "Un garçon en t-shirt saute en arrière-plan, près d'un porte-monnaie.",
    "A well-known, world-class rock-n-roll band.",
    "Un homme est-il là ? Peut-être, dit-elle.",
    "The dogs' owner isn't here; he's at his parents' house.",
    "Qu'est-ce qu'il y a ? Jusqu'à l'aube, c'est ça.",
    "'Quoted' words and \"double quotes\", then 'end'.",
    "He paid $1,000.50 for 2 tickets on 12/05/2020 at 7:30 p.m.",
    "Il a 3,5 ans, mesure 1,20 m et pèse 15 kg (soit 33 lb).",
    "Call 555-1234 or +33 1 23 45 67 89 - ask for room 4B.",
    "The score was 21-14 in the 2nd half of the 1990s.",
    "a -- b --- c - d -e f- g",
    "Words...and more... Wait!? Really?!",
    "x-ray, e-mail, co-op, re-enter, twenty-one",
    "L'été, l'hiver : aujourd'hui 25 °C, hier 30°C.",
    "Les enfants—tous les trois—jouent « dehors ».",
    "Rare: ǂ ʘ ꙮ ☃ ∰ ⅏ and CJK 漢字 in English text.",
    "Emoji-laden 🐶-walker's 😀 day.",
    "(Parenthesised) [bracketed] {braced} <angled> text.",
    "Tab\tseparated\u00a0non-breaking\u2009thin spaces.",
    "@user #hashtag http://example.com/a-b?c=d&e=f",
    "She said: «Bonjour!» — and left...",
    "ÉCOLE ÉLÉMENTAIRE À PARIS",
    "It’s the dog’s bone, isn’t it?",
]


def interesting(s):
    return bool(re.search(r"[-'’0-9]", s))


def main():
    out_path = os.path.join(ROOT, "test", "fixtures", "bpe-tokenizer-vectors.json")
    specs, cases = {}, []
    # The joiner word tokenizer (no vocabulary).
    wj = {"type": "word", "lowercase": True, "capitalize": True, "joiner": "@@"}
    specs["word-joiner"] = {"spec": wj, "vocab": None}
    for pair in data.PAIRS:
        corpus = data.load_pair(pair)
        train, test = corpus["train"], corpus["test"]
        src_spec, src_vocab, tgt_spec, tgt_vocab = data.tokenizers(pair, train)
        for side, spec, vocab, col in (("src", src_spec, src_vocab, 0), ("tgt", tgt_spec, tgt_vocab, 1)):
            sid = f"{pair}/{side}"
            specs[sid] = {"spec": spec, "vocab": vocab}
            index = {w: i for i, w in enumerate(vocab)}
            refs = [p[col] for p in test]
            # the round trip of every test reference
            if spec["type"] == "jieba":
                # A Chinese source is written without spaces: the round trip keeps every character
                # (NFKC-normalised and lower-cased, as the tokenizer reads it) and drops only the
                # spaces (13a BLEU would score a whole sentence as one word).
                back = [detokenize(tokenize(r, spec), spec) for r in refs]
                bad = [(r, k) for r, k in zip(refs, back) if re.sub(r"\s+", "", k) != re.sub(r"\s+", "", unicodedata.normalize("NFKC", r).lower())]
                print(f"{sid}: round trip of {len(refs)} test sources: {len(bad)} differ beyond spaces {bad[:3]}")
                assert not bad, bad[:3]
            elif spec["type"] != "char":
                back = [detokenize(tokenize(r, spec), spec) for r in refs]
                b = corpus_bleu(back, refs, lowercase=True)
                print(f"{sid}: round trip of {len(refs)} test references: BLEU {b:.2f}")
                assert b == 100.0, (sid, b)
                bw = corpus_bleu([detokenize(tokenize(r, wj), wj) for r in refs], refs, lowercase=True)
                assert bw == 100.0, (sid, "word-joiner", bw)
            texts = TEXTS + refs[:150] + [p[col] for p in train if interesting(p[col])][:150]
            for text in texts:
                toks = tokenize(text, spec)
                cases.append({"spec": sid, "text": text, "tokens": toks,
                              "ids": [index.get(t, data.UNK) for t in toks], "detok": detokenize(toks, spec)})
            if pair == "en-fr":
                for text in texts:
                    toks = tokenize(text, wj)
                    cases.append({"spec": "word-joiner", "text": text, "tokens": toks, "ids": None,
                                  "detok": detokenize(toks, wj)})
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump({"specs": specs, "cases": cases}, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    n = {k: sum(c["spec"] == k for c in cases) for k in specs}
    print(f"wrote {len(cases)} cases to {out_path}: {n}")


if __name__ == "__main__":
    main()
