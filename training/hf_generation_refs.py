"""PyTorch references for decoding a Hugging Face folder as transformers does (issue 39 item 5, issue 40 item 10).

Run from the repository root, after training/hf_test_models.py wrote test/fixtures/hf (same Python):

    /tmp/hfvenv/bin/python training/hf_generation_refs.py [m2m100] [bart]

It rebuilds the random bart and m2m100 models of test/fixtures/hf from their config.json with the
seeds hf_test_models.py used (and checks that they are those models: their greedy ids equal the
folder's reference.json, 20 of 20), then writes test/fixtures/hf/<name>/generation-reference.json:

- `forced` (m2m100, bart): teacher forcing as transformers does it, decoder_input_ids =
  [decoder_start, forced first token, reference ids…]: the reference's ids, the log-probability of
  each next token (the reference's, then </s>) and output_attentions' cross-attentions [T, L, H, S].
- `configs`: generation_config.json variants (max_length with forced_eos_token_id, min_length,
  no_repeat_ngram_size, repetition_penalty), each with generate()'s ids for some sentences,
  greedy and num_beams=4, read from a generation_config.json written with exactly those keys.
"""

from __future__ import annotations

import base64
import gzip
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parent.parent
HF = ROOT / "test" / "fixtures" / "hf"
DATA = ROOT.parent / "shared" / "datasets" / "multi30k"


def lines(name: str) -> list[str]:
    with gzip.open(DATA / name, "rt", encoding="utf-8") as f:
        return [x.strip() for x in f]


def b64(a: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(a, dtype="<f4").tobytes()).decode()


def rebuild(name: str):
    """The fixture's PyTorch model, made again as hf_test_models.py made it (same config, same seed)."""
    from transformers import AutoConfig, BartForConditionalGeneration, GenerationConfig, M2M100ForConditionalGeneration

    cfg = AutoConfig.from_pretrained(HF / name)
    seed, cls = {"bart": (1, BartForConditionalGeneration), "m2m100": (3, M2M100ForConditionalGeneration)}[name]
    torch.manual_seed(seed)
    model = cls(cfg).eval()
    model.config._attn_implementation = "eager"
    # generate() reads the folder's generation_config.json, not config.json's defaults (BART's forced_eos_token_id=2).
    model.generation_config = GenerationConfig.from_pretrained(HF / name)
    ref = json.loads((HF / name / "reference.json").read_text())
    gen = json.loads((HF / name / "generation_config.json").read_text())
    same = 0
    for s in ref["sentences"]:
        x = torch.tensor([s["input_ids"]])
        with torch.no_grad():
            g = model.generate(x, attention_mask=torch.ones_like(x), num_beams=1, do_sample=False, max_new_tokens=2 * len(s["input_ids"]) + 10,
                               min_length=0, no_repeat_ngram_size=0, repetition_penalty=1.0, decoder_start_token_id=gen["decoder_start_token_id"],
                               forced_bos_token_id=gen.get("forced_bos_token_id"))
        same += g[0].tolist()[1:] == s["greedy"]
    assert same == len(ref["sentences"]), f"{name}: the rebuilt model is not the fixture's ({same} of {len(ref['sentences'])} greedy outputs equal)"
    return model, ref, gen


def tokenizer(name: str):
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(HF / name / "tokenizer.json"))


def teacher_forced(model, gen: dict, tk, srcs: list[list[int]], targets: list[str]) -> list[dict]:
    start, first, eos = gen["decoder_start_token_id"], gen["forced_bos_token_id"], gen["eos_token_id"]
    out = []
    for ids, target in zip(srcs, targets):
        ref = tk.encode(target, add_special_tokens=False).ids
        dec = [start, first, *ref]
        x = torch.tensor([ids])
        with torch.no_grad():
            o = model(input_ids=x, attention_mask=torch.ones_like(x), decoder_input_ids=torch.tensor([dec]), output_attentions=True, return_dict=True)
        logp = torch.log_softmax(o.logits[0].float(), -1)
        nxt = [first, *ref, eos]
        att = torch.stack([a[0] for a in o.cross_attentions], 0).permute(2, 0, 1, 3).numpy()  # [T, L, H, S]
        out.append({"input_ids": ids, "target": target, "target_ids": ref, "decoder_input_ids": dec,
                    "log_probs": [float(logp[t, nxt[t]]) for t in range(len(dec))], "cross_attentions": b64(att), "shape": list(att.shape)})
    return out


# Each variant is written as a generation_config.json over the folder's own (the same keys the test writes).
VARIANTS = {
    "bart": [
        {"max_length": 12, "forced_eos_token_id": 2},
        {"max_length": 20, "forced_eos_token_id": 2, "min_length": 8},
        {"max_length": 20, "no_repeat_ngram_size": 2},
        {"max_length": 20, "repetition_penalty": 1.5},
        {"max_length": 20, "repetition_penalty": 1.3, "no_repeat_ngram_size": 3, "forced_eos_token_id": 2},
    ],
    "m2m100": [
        {"max_length": 14, "forced_eos_token_id": 2},
        {"max_length": 20, "no_repeat_ngram_size": 2, "repetition_penalty": 1.4},
    ],
}


def generated(model, gen: dict, variant: dict, srcs: list[list[int]]) -> dict:
    from transformers import GenerationConfig

    config = {**gen, **variant}
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "generation_config.json").write_text(json.dumps(config))
        gc = GenerationConfig.from_pretrained(d)
    rows = []
    for ids in srcs:
        x = torch.tensor([ids])
        with torch.no_grad():
            greedy = model.generate(x, attention_mask=torch.ones_like(x), generation_config=gc, num_beams=1, do_sample=False)
            beam = model.generate(x, attention_mask=torch.ones_like(x), generation_config=gc, num_beams=4, do_sample=False, length_penalty=1.0,
                                  early_stopping=False, num_return_sequences=1)
        rows.append({"input_ids": ids, "greedy": greedy[0].tolist()[1:], "beam4": beam[0].tolist()[1:]})
    return {"generation_config": config, "sentences": rows}


def main() -> None:
    torch.set_num_threads(2)
    en = lines("test_2016_flickr.en.gz")
    fr = lines("test_2016_flickr.fr.gz")
    for name in sys.argv[1:] or ["m2m100", "bart"]:
        model, ref, gen = rebuild(name)
        tk = tokenizer(name)
        srcs = [s["input_ids"] for s in ref["sentences"]]
        # References to score: the French of the same sentences (m2m100), the English itself (bart, an English model).
        targets = fr[: len(srcs)] if name == "m2m100" else en[: len(srcs)]
        out = {
            "source": f"training/hf_generation_refs.py from test/fixtures/hf/{name} (the model rebuilt: {len(srcs)} of {len(srcs)} reference.json greedy outputs equal)",
            "forced": teacher_forced(model, gen, tk, srcs[:6], targets[:6]),
            "configs": [generated(model, gen, v, srcs[:8]) for v in VARIANTS[name]],
        }
        (HF / name / "generation-reference.json").write_text(json.dumps(out), encoding="utf-8")
        print(name, "written", flush=True)


if __name__ == "__main__":
    main()
