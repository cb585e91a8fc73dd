"""Hugging Face seq2seq test folders in Optimum's ONNX layout, and their PyTorch references.

Run from the repository root with a Python that has transformers, torch, sentencepiece, tokenizers,
onnx and onnxruntime (the pyenv python3.11's pip installs them from the local wheels; CI never runs this):

    python3.11 -m venv /tmp/hfvenv && /tmp/hfvenv/bin/pip install transformers torch tokenizers sentencepiece onnx onnxruntime onnxscript
    /tmp/hfvenv/bin/python training/hf_test_models.py --out test/fixtures/hf [--only marian] [--train-minutes 8]

Writes one folder per model, each as `optimum-cli export onnx` lays it out (config.json,
generation_config.json, the tokenizer files, encoder_model.onnx, decoder_model.onnx and
decoder_with_past_model.onnx, or decoder_model_merged.onnx), with Optimum's input/output names
and dynamic axes, exported by the TorchScript exporter (dynamo=False), plus `reference.json`:
for 20 Multi30K test sentences, the input ids, PyTorch's greedy ids (generate(num_beams=1,
do_sample=False)), for Marian the num_beams=4 ids, and the cross-attentions
(output_attentions=True) of the greedy output, as base64 float32 [T, L, H, S].

- marian: MarianMTModel, source.spm + target.spm + vocab.json, trained briefly on Multi30K en-fr,
  in transformers.js's layout (onnx/encoder_model.onnx, onnx/decoder_model_merged.onnx).
- bart: random BartForConditionalGeneration, byte-level BPE tokenizer.json; its decoder also
  outputs cross_attentions.{i} (the folder "with the outputs").
- t5: random T5ForConditionalGeneration, Unigram tokenizer.json (decoding starts from <pad>).
- m2m100: random M2M100ForConditionalGeneration, language tokens __en__/__fr__, forced BOS; one
  merged decoder (decoder_model_merged.onnx, If on use_cache_branch).
- marian-optimum: a MarianMTModel trained 3 minutes, with the marian folder's SentencePiece pair, in Optimum's
  own layout (encoder_model.onnx, decoder_model.onnx, decoder_with_past_model.onnx beside
  config.json), as `optimum-cli export onnx` writes opus-mt; needs the marian folder first.
- marian-dynamo: a random MarianMTModel in that pair layout, exported by torch's dynamo exporter
  (torch.onnx.export's default since torch 2.9; needs onnxscript) instead of TorchScript's, so its
  graph was not shaped by this project's export code; needs the marian folder first.

Precision variants (issue 39; training/hf_variants.py says how each is made, as transformers.js
converts: q8 = quantize_dynamic per-tensor QInt8 over IntegerOps incl. Gather; fp16 =
float16.convert_float_to_float16 with keep_io_types=True, Softmax in float16):

    /tmp/hfvenv/bin/python training/hf_test_models.py --variants          # test/fixtures/hf/marian-q8, marian-fp16

writes, from the marian folder's own onnx/ files, `marian-q8/onnx/{encoder_model,decoder_model_merged}_quantized.onnx`
and `marian-fp16/onnx/..._fp16.onnx` with the marian folder's config and tokenizer files, and a
reference.json made by onnxruntime-python decoding those same files (greedy with the KV cache through
use_cache_branch, `bad_words_ids` [[pad]], at most 2 * len(input_ids) + 10 new tokens):

    {"start": <decoder start id>, "max_new_tokens": "2 * len(input_ids) + 10", "bad_words_ids": [[pad]],
     "dtype": "q8" | "fp16", "files": [...], "made_by": ..., "reference_by": ...,
     "drift_from_pytorch_fp32": {"greedy_equal": n, "sentences": 20, "attention_max_abs_diff_same_prefix": x},
     "sentences": [{"text", "input_ids", "greedy" (ids after the start token, eos included),
                    "cross_attentions" (base64 little-endian float32 [T, L, H, S], T = len(greedy): the
                    graph's own cross-attention Softmax outputs, found from the graph by
                    hf_variants.cross_attention_softmaxes, cast to float32), "shape",
                    "pytorch_fp32_greedy" (the marian folder's PyTorch ids), "first_difference" (step or null),
                    "attention_max_abs_diff_from_pytorch_fp32" (over the steps decoded from the same prefix)}]}

The same loop and taps on the fp32 files give PyTorch's ids on 20 of 20 and its attention within
1.4e-6 (printed first, as the check of the Python side).

Large random folders (issue 39; never committed; 1-3 hours and ~20 GB of disk for all three):

    /tmp/hfvenv/bin/python training/hf_test_models.py --large /tmp/hf-large [--only nllb-600m,m2m100-418m,bart-large]

For each of nllb-600m, m2m100-418m and bart-large (the published configs: d_model 1024, 12 + 12
layers, 16 heads, FFN 4096, vocabularies 256,206 / 128,112 / 50,265; random seeded weights, the
layer norms and the layers' Linear weights drawn wider than transformers' init so that the greedy ids
depend on the source instead of repeating one token (see large_model); a
tokenizer.json of the real vocabulary size and language-token ids, trained on Multi30K and padded),
three folders: `<m>-optimum/` (Optimum's layout: encoder_model.onnx, decoder_model.onnx,
decoder_with_past_model.onnx, TorchScript exporter, weights in `<file>.onnx_data`), `<m>-q8/`
(onnx/encoder_model_quantized.onnx, onnx/decoder_model_merged_quantized.onnx only) and `<m>-fp16/`
(onnx/..._fp16.onnx only), each with config.json, generation_config.json, tokenizer.json,
tokenizer_config.json and the model's reference.json:

    {"model", "start": 2, "generation": {"max_new_tokens": 40, "num_beams": 1, "forced_bos_token_id",
     "forced_eos_token_id", "no_repeat_ngram_size", "src_lang", "tgt_lang", ...}, "note",
     "agreement": {"onnxruntime_fp32_optimum": n, "onnxruntime_q8": n, "onnxruntime_fp16": n} (of 5, equal to PyTorch),
     "sentences": [{"text", "input_ids", "pytorch_fp32" (generate() before export), "onnxruntime_fp32_optimum",
                    "onnxruntime_q8", "onnxruntime_fp16" (onnxruntime-python greedy on each folder's files)}]}

Resumable: work files in `.work-<m>/`, every folder written as `<name>.part` and renamed when
complete, complete steps skipped; `STATUS` in the output folder lists the complete folders.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
import torch
from torch import nn

# $AL_DATASETS, else shared/datasets beside the repository (as attention_lens.DATASETS).
DATA = Path(os.environ.get("AL_DATASETS", Path(__file__).resolve().parent.parent.parent / "shared" / "datasets")) / "multi30k"
VENV_COMMAND = ("(test -x /tmp/hfvenv/bin/python || python3 -m venv /tmp/hfvenv) && /tmp/hfvenv/bin/pip install -q transformers torch "
                "tokenizers sentencepiece onnx onnxruntime")


def require_transformers() -> None:
    """Stops with the cause and the command that makes a fitting environment when this Python cannot
    run transformers' PyTorch models (Debian 12's python3-torch is 1.13; transformers 5.18 disables
    PyTorch below 2.5, 4.57 below 2.1, and no older transformers is in the local wheels)."""
    import importlib.util

    missing = [m for m in ("transformers", "tokenizers", "sentencepiece", "onnxruntime") if importlib.util.find_spec(m) is None]
    why = f"missing {', '.join(missing)}" if missing else None
    if not missing:
        from transformers.utils import is_torch_available

        if not is_torch_available():
            import transformers

            why = f"transformers {transformers.__version__} does not run on torch {torch.__version__}"
    if why:
        raise SystemExit(f"{Path(__file__).name}: this Python ({sys.executable}) cannot run it: {why}.\n"
                         f"Make an environment that can:\n  {VENV_COMMAND}\nand run it with /tmp/hfvenv/bin/python.")
N_REF = 20


def lines(name: str) -> list[str]:
    with gzip.open(DATA / name, "rt", encoding="utf-8") as f:
        return [x.strip() for x in f]


# --------------------------------------------------------------------------------------------
# Tokenizers


def train_spm(texts: list[str], prefix: str, vocab: int) -> None:
    import sentencepiece as spm

    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8") as f:
        f.write("\n".join(texts))
        path = f.name
    spm.SentencePieceTrainer.train(
        input=path, model_prefix=prefix, vocab_size=vocab, model_type="unigram", character_coverage=1.0,
        bos_id=-1, eos_id=1, unk_id=0, pad_id=-1, minloglevel=2,
    )
    os.unlink(path)


def bpe_tokenizer_json(texts: list[str], vocab: int, out: Path, specials: list[str], post: str) -> None:
    """A byte-level BPE (post='bart': <s> A </s>) or a Unigram with Metaspace (post='t5': A </s>)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    if post == "bart":
        tok = Tokenizer(models.BPE(unk_token="<unk>"))
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(vocab_size=vocab, special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    else:
        tok = Tokenizer(models.Unigram())
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        tok.decoder = decoders.Metaspace()
        trainer = trainers.UnigramTrainer(vocab_size=vocab, special_tokens=specials, unk_token="<unk>")
    tok.train_from_iterator(texts, trainer)
    if post == "bart":
        tok.post_processor = processors.TemplateProcessing(
            single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>",
            special_tokens=[("<s>", tok.token_to_id("<s>")), ("</s>", tok.token_to_id("</s>"))])
    elif post == "t5":
        tok.post_processor = processors.TemplateProcessing(
            single="$A </s>", pair="$A </s> $B </s>", special_tokens=[("</s>", tok.token_to_id("</s>"))])
    tok.save(str(out))


# --------------------------------------------------------------------------------------------
# Export in Optimum's layout


class EncoderWrap(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.enc = model.get_encoder()

    def forward(self, input_ids, attention_mask):
        return self.enc(input_ids=input_ids, attention_mask=attention_mask, return_dict=True).last_hidden_state


def _flat_present(cache, L: int, encoder_too: bool) -> list[torch.Tensor]:
    out = []
    for i in range(L):
        sk, sv = cache.self_attention_cache.layers[i].keys, cache.self_attention_cache.layers[i].values
        out += [sk, sv]
        if encoder_too:
            ck, cv = cache.cross_attention_cache.layers[i].keys, cache.cross_attention_cache.layers[i].values
            out += [ck, cv]
    return out


class DecoderWrap(nn.Module):
    """decoder_model.onnx: no past; every present; optionally the cross-attentions."""

    def __init__(self, model, L: int, cross_out: bool):
        super().__init__()
        self.m, self.L, self.cross_out = model, L, cross_out

    def forward(self, input_ids, encoder_hidden_states, encoder_attention_mask):
        from transformers.modeling_outputs import BaseModelOutput

        o = self.m(encoder_outputs=BaseModelOutput(last_hidden_state=encoder_hidden_states), attention_mask=encoder_attention_mask,
                   decoder_input_ids=input_ids, use_cache=True, output_attentions=self.cross_out, return_dict=True)
        out = [o.logits, *_flat_present(o.past_key_values, self.L, True)]
        if self.cross_out:
            out += list(o.cross_attentions)
        return tuple(out)


class DecoderPastWrap(nn.Module):
    """decoder_with_past_model.onnx: past in; logits and the decoder half of the present out."""

    def __init__(self, model, L: int, cross_out: bool):
        super().__init__()
        self.m, self.L, self.cross_out = model, L, cross_out

    def forward(self, input_ids, encoder_attention_mask, *past):
        from transformers.cache_utils import DynamicCache, EncoderDecoderCache
        from transformers.modeling_outputs import BaseModelOutput

        self_c = DynamicCache(ddp_cache_data=[(past[4 * i], past[4 * i + 1]) for i in range(self.L)])
        cross_c = DynamicCache(ddp_cache_data=[(past[4 * i + 2], past[4 * i + 3]) for i in range(self.L)])
        cache = EncoderDecoderCache(self_c, cross_c)
        for i in range(self.L):
            cache.is_updated[i] = True
        B, _, S, _ = past[2].shape
        dummy = torch.zeros(B, S, self.m.config.d_model, dtype=past[2].dtype)  # never read: the cross keys come from the past
        o = self.m(encoder_outputs=BaseModelOutput(last_hidden_state=dummy), attention_mask=encoder_attention_mask,
                   decoder_input_ids=input_ids, past_key_values=cache, use_cache=True, output_attentions=self.cross_out, return_dict=True)
        out = [o.logits, *_flat_present(o.past_key_values, self.L, False)]
        if self.cross_out:
            out += list(o.cross_attentions)
        return tuple(out)


def past_names(L: int, prefix: str, encoder_too: bool = True) -> list[str]:
    names = []
    for i in range(L):
        for part in ("decoder", "encoder") if encoder_too else ("decoder",):
            names += [f"{prefix}.{i}.{part}.key", f"{prefix}.{i}.{part}.value"]
    return names


def export_folder(model, out: Path, cross_out: bool, merged: bool, dynamo: bool = False,
                  parts: tuple[str, ...] = ("encoder_model", "decoder_model", "decoder_with_past_model"), subdirs: bool = False) -> None:
    """`parts`: which files to write; `subdirs`: each into out/<part>/, since a graph over 2 GB comes
    out of the TorchScript exporter with one external file per tensor, named by the tensor, and two
    exports in one folder would overwrite each other's (onnx__MatMul_N is a different weight in each)."""
    model.eval()

    def path(part: str) -> Path:
        if not subdirs:
            return out / f"{part}.onnx"
        (out / part).mkdir(parents=True, exist_ok=True)
        return out / part / f"{part}.onnx"

    if cross_out:  # the sdpa kernels return no probabilities; the others export sdpa, as Optimum does
        set_attn(model, "eager")
    cfg = model.config
    L = cfg.decoder_layers if hasattr(cfg, "decoder_layers") else cfg.num_decoder_layers
    H = cfg.decoder_attention_heads if hasattr(cfg, "decoder_attention_heads") else cfg.num_heads
    dh = getattr(cfg, "d_kv", None) or cfg.d_model // H
    B, S = 2, 7
    ids = torch.randint(4, 50, (B, S))
    mask = torch.ones(B, S, dtype=torch.long)
    # Optimum's exporter is TorchScript's; dynamo=True is torch's own default exporter since 2.9, a
    # second way the same folder gets written (other node names and op patterns around attention).
    kw = dict(opset_version=18, dynamo=True, external_data=False) if dynamo else dict(opset_version=17, dynamo=False, do_constant_folding=True)
    if "encoder_model" in parts:
        torch.onnx.export(EncoderWrap(model), (ids, mask), str(path("encoder_model")), input_names=["input_ids", "attention_mask"],
                          output_names=["last_hidden_state"],
                          dynamic_axes={"input_ids": {0: "batch_size", 1: "encoder_sequence_length"},
                                        "attention_mask": {0: "batch_size", 1: "encoder_sequence_length"},
                                        "last_hidden_state": {0: "batch_size", 1: "encoder_sequence_length"}}, **kw)
    enc = torch.randn(B, S, cfg.d_model)
    dec_ids = torch.randint(4, 50, (B, 3))
    present = past_names(L, "present")
    cross = [f"cross_attentions.{i}" for i in range(L)] if cross_out else []
    dyn = {"input_ids": {0: "batch_size", 1: "decoder_sequence_length"},
           "encoder_hidden_states": {0: "batch_size", 1: "encoder_sequence_length"},
           "encoder_attention_mask": {0: "batch_size", 1: "encoder_sequence_length"},
           "logits": {0: "batch_size", 1: "decoder_sequence_length"}}
    for n in present:
        dyn[n] = {0: "batch_size", 2: "encoder_sequence_length_out" if ".encoder." in n else "past_decoder_sequence_length + 1"}
    for n in cross:
        dyn[n] = {0: "batch_size", 2: "decoder_sequence_length", 3: "encoder_sequence_length"}
    no_past = path("decoder_model") if not merged else out / "_no_past.onnx"
    if "decoder_model" in parts:
        torch.onnx.export(DecoderWrap(model, L, cross_out), (dec_ids, enc, mask), str(no_past),
                          input_names=["input_ids", "encoder_hidden_states", "encoder_attention_mask"],
                          output_names=["logits", *present, *cross], dynamic_axes=dyn, **kw)
    past_in = past_names(L, "past_key_values")
    past = []
    for n in past_in:
        past.append(torch.randn(B, H, S if ".encoder." in n else 3, dh))
    one = torch.randint(4, 50, (B, 1))
    present_dec = past_names(L, "present", encoder_too=False)
    dyn2 = {"input_ids": {0: "batch_size"}, "encoder_attention_mask": {0: "batch_size", 1: "encoder_sequence_length"},
            "logits": {0: "batch_size"}}
    for n in past_in:
        dyn2[n] = {0: "batch_size", 2: "encoder_sequence_length_out" if ".encoder." in n else "past_decoder_sequence_length"}
    for n in present_dec:
        dyn2[n] = {0: "batch_size", 2: "past_decoder_sequence_length + 1"}
    for n in cross:
        dyn2[n] = {0: "batch_size", 3: "encoder_sequence_length"}
    with_past = path("decoder_with_past_model") if not merged else out / "_with_past.onnx"
    if "decoder_with_past_model" not in parts:
        pass
    elif dynamo:  # dynamo cannot turn dynamic_axes into shapes for the *past arguments: given as torch.export wants them
        from torch.export import Dim

        b, e, p = Dim("batch_size"), Dim("encoder_sequence_length"), Dim("past_decoder_sequence_length")
        shapes = ({0: b}, {0: b, 1: e}, tuple({0: b, 2: e if ".encoder." in n else p} for n in past_in))
        torch.onnx.export(DecoderPastWrap(model, L, cross_out), (one, mask, *past), str(with_past),
                          input_names=["input_ids", "encoder_attention_mask", *past_in], output_names=["logits", *present_dec, *cross],
                          dynamic_shapes=shapes, **kw)
    else:
        torch.onnx.export(DecoderPastWrap(model, L, cross_out), (one, mask, *past), str(with_past),
                          input_names=["input_ids", "encoder_attention_mask", *past_in], output_names=["logits", *present_dec, *cross],
                          dynamic_axes=dyn2, **kw)
    if merged:
        merge_decoders(no_past, with_past, out / "decoder_model_merged.onnx", L)
        no_past.unlink()
        with_past.unlink()


def merge_decoders(no_past: Path, with_past: Path, dest: Path, L: int) -> None:
    """Both decoders in one file behind an If on `use_cache_branch`, as Optimum's merge_decoders
    writes it: the inputs are the union, the with-past branch passes the encoder half of the past
    through as its present, and the weights both branches read sit once in the outer graph."""
    from onnx import helper, TensorProto

    a = onnx.load(str(no_past))
    b = onnx.load(str(with_past))
    outer_inits = {}

    def branch(m: onnx.ModelProto, tag: str, outputs: list[str]) -> onnx.GraphProto:
        g = m.graph
        inputs = {i.name for i in g.input}
        rename = {}
        for init in g.initializer:
            key = (init.data_type, tuple(init.dims), init.raw_data if init.raw_data else init.SerializeToString())
            new = outer_inits.get(key)
            if new is None:
                new = f"w{len(outer_inits)}"
                t = onnx.TensorProto()
                t.CopyFrom(init)
                t.name = new
                outer_inits[key] = (new, t)
            else:
                new = new[0]
            rename[init.name] = new
        nodes = []
        for n in g.node:
            nn_ = onnx.NodeProto()
            nn_.CopyFrom(n)
            for i, x in enumerate(nn_.input):
                if x in rename:
                    nn_.input[i] = rename[x]
                elif x and x not in inputs:
                    nn_.input[i] = f"{tag}/{x}"
            for i, x in enumerate(nn_.output):
                nn_.output[i] = f"{tag}/{x}"
            nn_.name = f"{tag}/{n.name}"
            nodes.append(nn_)
        produced = {o for n in g.node for o in n.output}
        outs = []
        for name in outputs:
            if name in produced:
                outs.append(helper.make_tensor_value_info(f"{tag}/{name}", TensorProto.FLOAT, None))
            else:  # the encoder half of the past, passed through
                src = name.replace("present", "past_key_values")
                nodes.append(helper.make_node("Identity", [src], [f"{tag}/{name}"], name=f"{tag}/pass_{name}"))
                outs.append(helper.make_tensor_value_info(f"{tag}/{name}", TensorProto.FLOAT, None))
        return helper.make_graph(nodes, f"{tag}_branch", [], outs)

    outputs = [o.name for o in a.graph.output]
    else_g = branch(a, "no_past", outputs)
    then_g = branch(b, "with_past", outputs)
    flag = helper.make_tensor_value_info("use_cache_branch", TensorProto.BOOL, [1])
    inputs = [i for i in a.graph.input] + [i for i in b.graph.input if i.name.startswith("past_key_values")] + [flag]
    node = helper.make_node("If", ["use_cache_branch"], outputs, name="optimum::if", then_branch=then_g, else_branch=else_g)
    graph = helper.make_graph([node], "merged_decoder", inputs, list(a.graph.output), [t for _, t in outer_inits.values()])
    model = helper.make_model(graph, opset_imports=a.opset_import, producer_name="attention-lens hf_test_models")
    model.ir_version = a.ir_version
    onnx.checker.check_model(model)
    onnx.save(model, str(dest))


# --------------------------------------------------------------------------------------------
# References


def set_attn(model, impl: str) -> None:
    """set_attn_implementation misses configs that submodules copied (T5's stacks)."""
    model.set_attn_implementation(impl)
    for mod in model.modules():
        c = getattr(mod, "config", None)
        if c is not None and hasattr(c, "_attn_implementation"):
            c._attn_implementation = impl


def b64(a: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(a, dtype="<f4").tobytes()).decode()


def references(model, input_ids: list[list[int]], start: int, beams: bool, texts: list[str], extra: dict | None = None) -> dict:
    model.eval()
    before = model.config._attn_implementation
    set_attn(model, "eager")  # output_attentions needs the eager kernels
    rows = []
    for text, ids in zip(texts, input_ids):
        x = torch.tensor([ids])
        limit = 2 * len(ids) + 10
        with torch.no_grad():
            g = model.generate(x, attention_mask=torch.ones_like(x), num_beams=1, do_sample=False, max_new_tokens=limit, min_length=0,
                               no_repeat_ngram_size=0, repetition_penalty=1.0, **(extra or {}))
            greedy = g[0].tolist()
            assert greedy[0] == start, (greedy[0], start)
            out = greedy[1:]
            dec_in = torch.tensor([greedy[:-1] if len(greedy) > 1 else greedy])
            dec_in = torch.tensor([[start] + out[:-1]]) if out else torch.tensor([[start]])
            o = model(input_ids=x, attention_mask=torch.ones_like(x), decoder_input_ids=dec_in, output_attentions=True, return_dict=True)
            att = torch.stack([a[0] for a in o.cross_attentions], 0)  # [L, H, T, S]
            att = att.permute(2, 0, 1, 3).numpy()  # [T, L, H, S]
            row = {"text": text, "input_ids": ids, "greedy": out, "cross_attentions": b64(att), "shape": list(att.shape)}
            if beams:
                bm = model.generate(x, attention_mask=torch.ones_like(x), num_beams=4, do_sample=False, max_new_tokens=limit, min_length=0,
                                    length_penalty=1.0, early_stopping=False, no_repeat_ngram_size=0, num_return_sequences=1, **(extra or {}))
                row["beam4"] = bm[0].tolist()[1:]
        rows.append(row)
    set_attn(model, before)
    return {"start": start, "sentences": rows}


def clean_generation_config(model, **kw) -> None:
    gc = model.generation_config
    for k, v in dict(max_length=512, num_beams=1, bad_words_ids=None, no_repeat_ngram_size=0, forced_eos_token_id=None, min_length=0).items():
        setattr(gc, k, v)
    for k, v in kw.items():
        setattr(gc, k, v)


# --------------------------------------------------------------------------------------------
# The four folders


def marian(out: Path, minutes: float, texts: list[str]) -> None:
    from transformers import MarianConfig, MarianMTModel, MarianTokenizer

    en, fr = lines("train.en.gz"), lines("train.fr.gz")
    work = Path(tempfile.mkdtemp())
    train_spm(en, str(work / "source"), 1000)
    train_spm(fr, str(work / "target"), 1000)
    import sentencepiece as spm

    pieces = []
    for p in ("source", "target"):
        sp = spm.SentencePieceProcessor(model_file=str(work / f"{p}.model"))
        pieces += [sp.id_to_piece(i) for i in range(sp.get_piece_size())]
    vocab = {"</s>": 0, "<unk>": 1}
    for p in pieces:
        if p not in vocab:
            vocab[p] = len(vocab)
    vocab["<pad>"] = len(vocab)
    out.mkdir(parents=True, exist_ok=True)
    shutil.copy(work / "source.model", out / "source.spm")
    shutil.copy(work / "target.model", out / "target.spm")
    (out / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False, indent=0), encoding="utf-8")
    (out / "tokenizer_config.json").write_text(json.dumps({"source_lang": "en", "target_lang": "fr", "model_max_length": 512,
                                                           "tokenizer_class": "MarianTokenizer", "separate_vocabs": False}), encoding="utf-8")
    tok = MarianTokenizer(str(out / "source.spm"), str(out / "target.spm"), str(out / "vocab.json"), source_lang="en", target_lang="fr")
    pad = vocab["<pad>"]
    cfg = MarianConfig(vocab_size=len(vocab), d_model=128, encoder_layers=3, decoder_layers=3, encoder_attention_heads=4,
                       decoder_attention_heads=4, encoder_ffn_dim=256, decoder_ffn_dim=256, max_position_embeddings=256, pad_token_id=pad,
                       eos_token_id=0, decoder_start_token_id=pad, forced_eos_token_id=0, share_encoder_decoder_embeddings=True,
                       dropout=0.1, scale_embedding=True)
    torch.manual_seed(0)
    model = MarianMTModel(cfg)
    train_briefly(model, tok, en, fr, minutes)
    clean_generation_config(model, bad_words_ids=[[pad]], decoder_start_token_id=pad, pad_token_id=pad, eos_token_id=0)
    model.save_pretrained(out)
    _drop_weights(out)
    ids = [tok(t).input_ids for t in texts]
    ref = references(model, ids, pad, True, texts, {"bad_words_ids": [[pad]]})
    export_folder(model, out, cross_out=False, merged=False)
    transformersjs_layout(out)
    (out / "reference.json").write_text(json.dumps(ref), encoding="utf-8")


def train_briefly(model, tok, en: list[str], fr: list[str], minutes: float) -> None:
    pairs = [(a, b) for a, b in zip(en, fr) if len(a.split()) <= 30]
    rng = random.Random(0)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    model.train()
    end = time.time() + minutes * 60
    step = 0
    while time.time() < end:
        batch = rng.sample(pairs, 64)
        enc = tok([a for a, _ in batch], text_target=[b for _, b in batch], padding=True, truncation=True, max_length=64, return_tensors="pt")
        labels = enc["labels"]
        labels[labels == model.config.pad_token_id] = -100
        loss = model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"], labels=labels).loss
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        if step % 100 == 0:
            print(f"marian step {step} loss {loss.item():.3f}", flush=True)
    model.eval()


def _drop_weights(out: Path) -> None:
    # The ONNX files are the model; safetensors would double the folder for nothing.
    for p in out.glob("*.safetensors"):
        p.unlink()


def bart(out: Path, texts: list[str]) -> None:
    from transformers import BartConfig, BartForConditionalGeneration, PreTrainedTokenizerFast

    out.mkdir(parents=True, exist_ok=True)
    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    bpe_tokenizer_json(lines("train.en.gz")[:5000], 800, out / "tokenizer.json", specials, "bart")
    tok = PreTrainedTokenizerFast(tokenizer_file=str(out / "tokenizer.json"), bos_token="<s>", eos_token="</s>", pad_token="<pad>",
                                  unk_token="<unk>", mask_token="<mask>")
    tok.save_pretrained(out)
    V = tok.vocab_size
    cfg = BartConfig(vocab_size=V, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4,
                     encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=256, pad_token_id=1, bos_token_id=0, eos_token_id=2,
                     decoder_start_token_id=2, forced_bos_token_id=0)
    torch.manual_seed(1)
    model = BartForConditionalGeneration(cfg)
    clean_generation_config(model, forced_bos_token_id=0, decoder_start_token_id=2)
    model.save_pretrained(out)
    _drop_weights(out)
    ids = [tok(t).input_ids for t in texts]
    ref = references(model, ids, 2, False, texts)
    export_folder(model, out, cross_out=True, merged=False)
    (out / "reference.json").write_text(json.dumps(ref), encoding="utf-8")


def t5(out: Path, texts: list[str]) -> None:
    from transformers import PreTrainedTokenizerFast, T5Config, T5ForConditionalGeneration

    out.mkdir(parents=True, exist_ok=True)
    bpe_tokenizer_json(lines("train.en.gz")[:5000], 800, out / "tokenizer.json", ["<pad>", "</s>", "<unk>"], "t5")
    tok = PreTrainedTokenizerFast(tokenizer_file=str(out / "tokenizer.json"), eos_token="</s>", pad_token="<pad>", unk_token="<unk>")
    tok.save_pretrained(out)
    cfg = T5Config(vocab_size=tok.vocab_size, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_decoder_layers=2, num_heads=4,
                   pad_token_id=0, eos_token_id=1, decoder_start_token_id=0, relative_attention_num_buckets=8)
    torch.manual_seed(2)
    model = T5ForConditionalGeneration(cfg)
    clean_generation_config(model, decoder_start_token_id=0)
    model.save_pretrained(out)
    _drop_weights(out)
    ids = [tok(t).input_ids for t in texts]
    ref = references(model, ids, 0, False, texts)
    export_folder(model, out, cross_out=False, merged=False)
    (out / "reference.json").write_text(json.dumps(ref), encoding="utf-8")


def m2m100(out: Path, texts: list[str]) -> None:
    from tokenizers import AddedToken, Tokenizer
    from transformers import M2M100Config, M2M100ForConditionalGeneration

    out.mkdir(parents=True, exist_ok=True)
    specials = ["<s>", "<pad>", "</s>", "<unk>"]
    bpe_tokenizer_json(lines("train.en.gz")[:3000] + lines("train.fr.gz")[:3000], 800, out / "tokenizer.json", specials, "none")
    tk = Tokenizer.from_file(str(out / "tokenizer.json"))
    langs = ["__en__", "__fr__", "__de__"]
    tk.add_special_tokens([AddedToken(x, special=True) for x in langs])
    tk.save(str(out / "tokenizer.json"))
    (out / "tokenizer_config.json").write_text(json.dumps({"src_lang": "en", "tgt_lang": "fr", "tokenizer_class": "M2M100Tokenizer",
                                                           "additional_special_tokens": langs}), encoding="utf-8")
    V = tk.get_vocab_size()
    cfg = M2M100Config(vocab_size=V, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4,
                       encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=256, pad_token_id=1, bos_token_id=0, eos_token_id=2,
                       decoder_start_token_id=2)
    torch.manual_seed(3)
    model = M2M100ForConditionalGeneration(cfg)
    fr = tk.token_to_id("__fr__")
    clean_generation_config(model, decoder_start_token_id=2, forced_bos_token_id=fr)
    model.save_pretrained(out)
    _drop_weights(out)
    en = tk.token_to_id("__en__")
    ids = [[en, *tk.encode(t, add_special_tokens=False).ids, 2] for t in texts]
    ref = references(model, ids, 2, False, texts, {"forced_bos_token_id": fr})
    ref["src_lang"], ref["tgt_lang"] = "en", "fr"
    export_folder(model, out, cross_out=False, merged=True)
    (out / "reference.json").write_text(json.dumps(ref), encoding="utf-8")


def transformersjs_layout(folder: Path) -> None:
    """transformers.js's layout: onnx/encoder_model.onnx and onnx/decoder_model_merged.onnx (it loads
    only the merged decoder), made from the Optimum pair already exported."""
    onnx_dir = folder / "onnx"
    onnx_dir.mkdir(exist_ok=True)
    cfg = json.loads((folder / "config.json").read_text())
    L = cfg.get("decoder_layers") or cfg.get("num_decoder_layers")
    merge_decoders(folder / "decoder_model.onnx", folder / "decoder_with_past_model.onnx", onnx_dir / "decoder_model_merged.onnx", L)
    (folder / "encoder_model.onnx").rename(onnx_dir / "encoder_model.onnx")
    (folder / "decoder_model.onnx").unlink()
    (folder / "decoder_with_past_model.onnx").unlink()


def small_marian_folder(out: Path, spm_from: Path, texts: list[str], seed: int, train_minutes: float, beams: bool, dynamo: bool) -> None:
    """A small Marian (d_model 64, 2 + 2 layers, 4 heads) with the test Marian's SentencePiece pair
    and vocabulary, optionally trained briefly, in Optimum's pair layout, with its references."""
    from transformers import MarianConfig, MarianMTModel, MarianTokenizer

    out.mkdir(parents=True, exist_ok=True)
    for f in ("source.spm", "target.spm", "vocab.json", "tokenizer_config.json"):
        shutil.copy(spm_from / f, out / f)
    vocab = json.loads((out / "vocab.json").read_text(encoding="utf-8"))
    pad = vocab["<pad>"]
    tok = MarianTokenizer(str(out / "source.spm"), str(out / "target.spm"), str(out / "vocab.json"), source_lang="en", target_lang="fr")
    cfg = MarianConfig(vocab_size=len(vocab), d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                       decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128, max_position_embeddings=256, pad_token_id=pad,
                       eos_token_id=0, decoder_start_token_id=pad, forced_eos_token_id=0, share_encoder_decoder_embeddings=True)
    torch.manual_seed(seed)
    model = MarianMTModel(cfg)
    if train_minutes:
        train_briefly(model, tok, lines("train.en.gz"), lines("train.fr.gz"), train_minutes)
    model.eval()
    clean_generation_config(model, bad_words_ids=[[pad]], decoder_start_token_id=pad, pad_token_id=pad, eos_token_id=0)
    model.save_pretrained(out)
    _drop_weights(out)
    ids = [tok(t).input_ids for t in texts]
    ref = references(model, ids, pad, beams, texts, {"bad_words_ids": [[pad]]})
    export_folder(model, out, cross_out=False, merged=False, dynamo=dynamo)
    (out / "reference.json").write_text(json.dumps(ref), encoding="utf-8")


def marian_optimum(out: Path, spm_from: Path, texts: list[str]) -> None:
    """A Marian in Optimum's pair layout (the layout `optimum-cli export onnx` gives opus-mt), trained
    3 minutes (random weights tie beams: untrained, its beam-4 ids differed from PyTorch's on 2 of 20
    sentences, each at one step)."""
    small_marian_folder(out, spm_from, texts, seed=5, train_minutes=3, beams=True, dynamo=False)


def marian_dynamo(out: Path, spm_from: Path, texts: list[str]) -> None:
    """A random Marian in Optimum's pair layout, exported by torch's dynamo exporter (torch.onnx.export's
    default since torch 2.9) instead of TorchScript's: a graph this project's own export code did not shape."""
    small_marian_folder(out, spm_from, texts, seed=6, train_minutes=0, beams=False, dynamo=True)


def bench_marian(out: Path, spm_from: Path) -> None:
    """An opus-mt-size Marian for bench/ (Helsinki-NLP/opus-mt-*'s config: d_model 512, 6 + 6 layers,
    8 heads, FFN 2048, vocabulary 58,101), random weights, in transformers.js's layout.
    The tokenizer is the test Marian's SentencePiece pair with its vocabulary padded to 58,101."""
    from transformers import MarianConfig, MarianMTModel

    out.mkdir(parents=True, exist_ok=True)
    for f in ("source.spm", "target.spm", "tokenizer_config.json"):
        shutil.copy(spm_from / f, out / f)
    vocab = json.loads((spm_from / "vocab.json").read_text(encoding="utf-8"))
    pad = vocab.pop("<pad>")
    V = 58101
    for i in range(len(vocab), V - 1):
        vocab[f"<x{i}>"] = i
    vocab["<pad>"] = V - 1
    (out / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    # opus-mt's sizes, given explicitly: transformers' MarianConfig defaults are the large model's
    # (d_model 1024, 12 + 12 layers, 16 heads: 846 MB and 1.3 GB files, over the 512 MB cap).
    cfg = MarianConfig(vocab_size=V, d_model=512, encoder_layers=6, decoder_layers=6, encoder_attention_heads=8, decoder_attention_heads=8,
                       encoder_ffn_dim=2048, decoder_ffn_dim=2048, max_position_embeddings=512, pad_token_id=V - 1, eos_token_id=0,
                       decoder_start_token_id=V - 1, forced_eos_token_id=0, share_encoder_decoder_embeddings=True)
    torch.manual_seed(4)
    model = MarianMTModel(cfg).eval()
    clean_generation_config(model, bad_words_ids=[[V - 1]], decoder_start_token_id=V - 1, pad_token_id=V - 1, eos_token_id=0)
    model.save_pretrained(out)
    _drop_weights(out)
    del pad
    export_folder(model, out, cross_out=False, merged=False)
    transformersjs_layout(out)


# --------------------------------------------------------------------------------------------
# Precision variants of the small Marian (issue 39): committed fixtures


def marian_variants(root: Path, texts: list[str]) -> None:
    """test/fixtures/hf/marian-q8 and marian-fp16: the marian folder's own ONNX files as transformers.js
    converts them (hf_variants.quantize_q8 / to_fp16), each folder holding only that variant, with a
    reference.json decoded by onnxruntime-python from the same files."""
    import hf_variants as hv

    src = root / "marian"
    torch_ref = json.loads((src / "reference.json").read_text(encoding="utf-8"))
    cfg = json.loads((src / "config.json").read_text(encoding="utf-8"))
    L, pad = cfg["decoder_layers"], cfg["pad_token_id"]
    # onnxruntime-python on the fp32 files first: the loop and the taps must give PyTorch's ids and attention.
    fp32 = hv.OrtSeq2Seq(src / "onnx" / "encoder_model.onnx", merged=src / "onnx" / "decoder_model_merged.onnx", layers=L, taps=True)
    check = drift(fp32, torch_ref, pad, texts)
    print(f"marian fp32 (onnxruntime-python) against PyTorch: {json.dumps(check['drift_from_pytorch_fp32'])}", flush=True)
    for dtype, suffix, make in (("q8", "quantized", hv.quantize_q8), ("fp16", "fp16", hv.to_fp16)):
        dest = root / f"marian-{dtype}"
        part = dest.with_name(dest.name + ".part")
        shutil.rmtree(part, ignore_errors=True)
        for f in ("config.json", "generation_config.json", "source.spm", "target.spm", "vocab.json", "tokenizer_config.json"):
            (part / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(src / f, part / f)
        enc, dec = part / "onnx" / f"encoder_model_{suffix}.onnx", part / "onnx" / f"decoder_model_merged_{suffix}.onnx"
        make(src / "onnx" / "encoder_model.onnx", enc)
        make(src / "onnx" / "decoder_model_merged.onnx", dec)
        ort_model = hv.OrtSeq2Seq(enc, merged=dec, layers=L, taps=True)
        ref = drift(ort_model, torch_ref, pad, texts)
        ref.update(dtype=dtype, files=[f"onnx/{enc.name}", f"onnx/{dec.name}"],
                   made_by=("onnxruntime.quantization.quantize_dynamic (transformers.js q8: per-tensor, QInt8 weights, IntegerOps "
                            "incl. Gather, EnableSubgraph, MatMulConstBOnly)" if dtype == "q8" else
                            "onnxruntime.transformers.float16.convert_float_to_float16 (transformers.js fp16: keep_io_types=True, "
                            "Softmax in float16)"),
                   reference_by="onnxruntime-python decoding these files (greedy, KV cache through use_cache_branch); cross_attentions "
                                "are the graph's own cross-attention Softmax outputs, cast to float32")
        (part / "reference.json").write_text(json.dumps(ref), encoding="utf-8")
        shutil.rmtree(dest, ignore_errors=True)
        part.rename(dest)
        print(f"marian-{dtype}: {sum(p.stat().st_size for p in dest.rglob('*')) / 1e6:.1f} MB, "
              f"{json.dumps(ref['drift_from_pytorch_fp32'])}", flush=True)


def drift(ort_model, torch_ref: dict, pad: int, texts: list[str]) -> dict:
    """onnxruntime-python's greedy ids and tapped attention for the reference's sentences, and how far
    they are from PyTorch fp32's (the reference): equal ids, the first differing step, and the
    largest attention difference over the steps both decoded from the same prefix."""
    rows, same, worst = [], 0, 0.0
    for s in torch_ref["sentences"]:
        ids = s["input_ids"]
        out, att = ort_model.greedy(ids, torch_ref["start"], 0, 2 * len(ids) + 10, bad_ids=(pad,))
        t_ids = s["greedy"]
        t_att = np.frombuffer(base64.b64decode(s["cross_attentions"]), dtype="<f4").reshape(s["shape"])
        k = next((i for i, (a, b) in enumerate(zip(out, t_ids)) if a != b), min(len(out), len(t_ids)))
        steps = min(k + 1, len(out), len(t_ids))  # step k still had the same prefix
        d = float(np.abs(att[:steps] - t_att[:steps]).max()) if steps else 0.0
        worst = max(worst, d)
        same += out == t_ids
        rows.append({"text": s["text"], "input_ids": ids, "greedy": out, "cross_attentions": b64(att), "shape": list(att.shape),
                     "pytorch_fp32_greedy": t_ids, "first_difference": None if out == t_ids else k,
                     "attention_max_abs_diff_from_pytorch_fp32": d})
    assert len(rows) == len(texts)
    return {"start": torch_ref["start"], "max_new_tokens": "2 * len(input_ids) + 10", "bad_words_ids": [[pad]],
            "drift_from_pytorch_fp32": {"greedy_equal": same, "sentences": len(rows), "attention_max_abs_diff_same_prefix": worst},
            "sentences": rows}


# --------------------------------------------------------------------------------------------
# Large random folders (issue 39): BART-large, M2M100-418M, NLLB-200-distilled-600M sizes, not committed

LARGE_ORDER = ("nllb-600m", "m2m100-418m", "bart-large")
N_LARGE = 5
LARGE_NEW_TOKENS = 40


def large_config(name: str) -> tuple[dict, dict, dict]:
    """config.json, generation_config.json and tokenizer_config.json as the published models have them
    (facebook/bart-large, facebook/m2m100_418M, facebook/nllb-200-distilled-600M), as best known here."""
    common = dict(activation_dropout=0.0, attention_dropout=0.1, d_model=1024, decoder_attention_heads=16, decoder_ffn_dim=4096,
                  decoder_layerdrop=0.05, decoder_layers=12, decoder_start_token_id=2, dropout=0.1, encoder_attention_heads=16,
                  encoder_ffn_dim=4096, encoder_layerdrop=0.05, encoder_layers=12, init_std=0.02, is_encoder_decoder=True,
                  max_position_embeddings=1024, num_hidden_layers=12, pad_token_id=1, bos_token_id=0, eos_token_id=2, scale_embedding=True,
                  use_cache=True, activation_function="relu", model_type="m2m_100", architectures=["M2M100ForConditionalGeneration"])
    if name == "nllb-600m":
        cfg = dict(common, vocab_size=256206, max_length=200, tokenizer_class="NllbTokenizer", _name_or_path="facebook/nllb-200-distilled-600M")
        gen = dict(bos_token_id=0, decoder_start_token_id=2, eos_token_id=2, max_length=200, pad_token_id=1)
        tok = dict(tokenizer_class="NllbTokenizer", src_lang="eng_Latn", tgt_lang=None, model_max_length=1024, bos_token="<s>",
                   eos_token="</s>", sep_token="</s>", cls_token="<s>", unk_token="<unk>", pad_token="<pad>", mask_token="<mask>",
                   legacy_behaviour=False)
    elif name == "m2m100-418m":
        cfg = dict(common, vocab_size=128112, max_length=200, early_stopping=True, num_beams=5, _name_or_path="facebook/m2m100_418M",
                   gradient_checkpointing=False)
        gen = dict(bos_token_id=0, decoder_start_token_id=2, early_stopping=True, eos_token_id=2, max_length=200, num_beams=5, pad_token_id=1)
        tok = dict(tokenizer_class="M2M100Tokenizer", src_lang=None, tgt_lang=None, language_codes="m2m100", num_madeup_words=8,
                   model_max_length=1024, bos_token="<s>", eos_token="</s>", sep_token="</s>", unk_token="<unk>", pad_token="<pad>")
    else:
        cfg = dict(activation_dropout=0.1, activation_function="gelu", add_bias_logits=False, add_final_layer_norm=False,
                   architectures=["BartModel"], attention_dropout=0.1, bos_token_id=0, classif_dropout=0.1, classifier_dropout=0.0,
                   d_model=1024, decoder_attention_heads=16, decoder_ffn_dim=4096, decoder_layerdrop=0.0, decoder_layers=12,
                   decoder_start_token_id=2, dropout=0.1, early_stopping=True, encoder_attention_heads=16, encoder_ffn_dim=4096,
                   encoder_layerdrop=0.0, encoder_layers=12, eos_token_id=2, forced_bos_token_id=0, forced_eos_token_id=2,
                   init_std=0.02, is_encoder_decoder=True, max_position_embeddings=1024, model_type="bart", no_repeat_ngram_size=3,
                   normalize_before=False, num_beams=4, num_hidden_layers=12, pad_token_id=1, scale_embedding=False, vocab_size=50265,
                   _name_or_path="facebook/bart-large")
        gen = dict(bos_token_id=0, decoder_start_token_id=2, early_stopping=True, eos_token_id=2, forced_bos_token_id=0,
                   forced_eos_token_id=2, no_repeat_ngram_size=3, num_beams=4, pad_token_id=1)
        tok = dict(tokenizer_class="BartTokenizer", model_max_length=1024, add_prefix_space=False, errors="replace", bos_token="<s>",
                   eos_token="</s>", sep_token="</s>", cls_token="<s>", unk_token="<unk>", pad_token="<pad>", mask_token="<mask>")
    return cfg, gen, tok


def large_tokenizer(name: str, out: Path) -> dict:
    """tokenizer.json with the published model's vocabulary size and special/language-token ids: a
    tokenizer trained on Multi30K (en, fr, de), padded with filler pieces up to the real size, the
    language codes after it as the real ones are (NLLB: the 202 FLORES-200 codes from 256001,
    eng_Latn 256047, fra_Latn 256057, <mask> 256203; M2M100: the 100 __xx__ codes from 128004,
    __en__ 128022, __fr__ 128028, 8 <madeupwordN>; BART: byte-level BPE, <mask> 50264)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    texts = lines("train.en.gz") + lines("train.fr.gz") + lines("train.de.gz")
    specials = ["<s>", "<pad>", "</s>", "<unk>"]
    if name == "bart-large":
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        tok.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=50264, special_tokens=specials,
                                                           initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
        tok.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0), trim_offsets=True, add_prefix_space=False)
        body, after, codes = 50264, ["<mask>"], []
    else:
        tok = Tokenizer(models.Unigram())
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        tok.decoder = decoders.Metaspace()
        tok.train_from_iterator(texts, trainers.UnigramTrainer(vocab_size=16000, special_tokens=specials, unk_token="<unk>",
                                                               show_progress=False))
        if name == "nllb-600m":
            from transformers.models.nllb.tokenization_nllb import FAIRSEQ_LANGUAGE_CODES

            body, codes, after = 256001, list(FAIRSEQ_LANGUAGE_CODES), ["<mask>"]
        else:
            from transformers.models.m2m_100.tokenization_m2m_100 import FAIRSEQ_LANGUAGE_CODES

            body, codes, after = 128004, [f"__{c}__" for c in FAIRSEQ_LANGUAGE_CODES["m2m100"]], [f"<madeupword{i}>" for i in range(8)]
    j = json.loads(tok.to_str())
    vocab = j["model"]["vocab"]
    n = len(vocab)
    assert n <= body, (n, body)
    if isinstance(vocab, dict):  # BPE
        for i in range(n, body):
            vocab[f"<filler{i}>"] = i
    else:  # Unigram: [piece, log-probability]
        vocab += [[f"<filler{i}>", -99.0] for i in range(n, body)]
    added = [a for a in j["added_tokens"] if a["content"] in specials]
    for i, t in enumerate(codes + after):
        added.append({"id": body + i, "content": t, "single_word": False, "lstrip": t == "<mask>" and name == "bart-large",
                      "rstrip": False, "normalized": False, "special": True})
    j["added_tokens"] = added
    tk = Tokenizer.from_str(json.dumps(j))
    if codes:
        src = "eng_Latn" if name == "nllb-600m" else "__en__"
        tk.post_processor = processors.TemplateProcessing(single=f"{src} $A </s>", pair=f"{src} $A $B </s>",
                                                          special_tokens=[(src, tk.token_to_id(src)), ("</s>", 2)])
    tk.save(str(out / "tokenizer.json"))
    ids = {t: tk.token_to_id(t) for t in specials + codes[:3] + after}
    if name == "nllb-600m":
        assert (tk.token_to_id("eng_Latn"), tk.token_to_id("fra_Latn"), tk.token_to_id("<mask>")) == (256047, 256057, 256203)
        assert tk.get_vocab_size() == 256204
    elif name == "m2m100-418m":
        assert (tk.token_to_id("__en__"), tk.token_to_id("__fr__")) == (128022, 128028) and tk.get_vocab_size() == 128112
    else:
        assert tk.token_to_id("<mask>") == 50264 and tk.get_vocab_size() == 50265
    assert [ids[t] for t in specials] == [0, 1, 2, 3], ids
    return {"additional_special_tokens": codes}


def large_model(name: str):
    from transformers import BartConfig, BartForConditionalGeneration, M2M100Config, M2M100ForConditionalGeneration

    cfg, gen, _ = large_config(name)
    keep = {k: v for k, v in cfg.items() if k not in ("architectures", "model_type", "_name_or_path", "tokenizer_class")}
    torch.manual_seed({"nllb-600m": 600, "m2m100-418m": 418, "bart-large": 406}[name])
    if name == "bart-large":
        model = BartForConditionalGeneration(BartConfig(**keep))
    else:
        model = M2M100ForConditionalGeneration(M2M100Config(**keep))
    # transformers' own init makes a random model repeat one token for ever (the embeddings are tied to
    # the output layer and scaled by sqrt(d_model), so the current token wins every step): every
    # sentence would decode to the same ids, and a test could pass without reading the source. Wider
    # random layer norms and layer weights make the ids depend on the source and vary from step to step.
    with torch.no_grad():
        for n, mod in model.named_modules():
            if isinstance(mod, nn.LayerNorm):
                mod.weight.normal_(0, 1.0)
                mod.bias.normal_(0, 0.1)
            elif isinstance(mod, nn.Linear) and ".layers." in n:
                mod.weight.normal_(0, 0.05)
    model.eval()
    for k, v in gen.items():
        setattr(model.generation_config, k, v)
    return model


def large_generation(name: str, tokenizer_json: Path) -> dict:
    """The settings every reference decode of a large folder uses: generate(num_beams=1,
    do_sample=False, max_new_tokens=40) with the generation_config's own forced tokens and
    no_repeat_ngram_size (BART), the target language forced for M2M100 and NLLB."""
    from tokenizers import Tokenizer

    tk = Tokenizer.from_file(str(tokenizer_json))
    _, gen, _ = large_config(name)
    g = {"max_new_tokens": LARGE_NEW_TOKENS, "num_beams": 1, "do_sample": False, "decoder_start_token_id": 2, "eos_token_id": 2,
         "forced_bos_token_id": gen.get("forced_bos_token_id"), "forced_eos_token_id": gen.get("forced_eos_token_id"),
         "no_repeat_ngram_size": gen.get("no_repeat_ngram_size", 0)}
    if name == "nllb-600m":
        g.update(src_lang="eng_Latn", tgt_lang="fra_Latn", forced_bos_token_id=tk.token_to_id("fra_Latn"))
    elif name == "m2m100-418m":
        g.update(src_lang="__en__", tgt_lang="__fr__", forced_bos_token_id=tk.token_to_id("__fr__"))
    return g


def large(root: Path, name: str, texts: list[str]) -> None:
    """One large model's three folders, resumable: <name>-optimum (Optimum's layout, TorchScript
    exporter, weights in *.onnx_data), <name>-q8 (onnx/*_quantized.onnx only), <name>-fp16
    (onnx/*_fp16.onnx only), each with the same reference.json. Work files sit in .work-<name>/, each
    step writes to a temporary name and renames, and a step whose result exists is skipped."""
    import gc

    import hf_variants as hv
    from tokenizers import Tokenizer

    work = root / f".work-{name}"
    common = work / "common"
    export = work / "export"
    if not (common / "DONE").exists():
        shutil.rmtree(common, ignore_errors=True)
        common.mkdir(parents=True)
        cfg, gen, tok_cfg = large_config(name)
        tok_cfg.update(large_tokenizer(name, common))
        if not tok_cfg["additional_special_tokens"]:
            del tok_cfg["additional_special_tokens"]
        (common / "config.json").write_text(json.dumps(dict(cfg, torch_dtype="float32"), indent=2), encoding="utf-8")
        (common / "generation_config.json").write_text(json.dumps(gen, indent=2), encoding="utf-8")
        (common / "tokenizer_config.json").write_text(json.dumps(tok_cfg, indent=2), encoding="utf-8")
        (common / "DONE").write_text("")
        stage(root, f"{name}: tokenizer and configs")
    tk = Tokenizer.from_file(str(common / "tokenizer.json"))
    gen = large_generation(name, common / "tokenizer.json")
    ids = [tk.encode(t).ids for t in texts]
    export.mkdir(parents=True, exist_ok=True)
    parts = ("encoder_model", "decoder_model", "decoder_with_past_model")
    todo = [p for p in parts if not (export / p / "DONE").exists()]
    if todo or not (export / "pytorch.json").exists():
        model = large_model(name)
        if not (export / "pytorch.json").exists():
            t0 = time.time()
            rows = []
            with torch.no_grad():
                for t, x in zip(texts, ids):
                    xt = torch.tensor([x])
                    g = model.generate(xt, attention_mask=torch.ones_like(xt), num_beams=1, do_sample=False, max_new_tokens=LARGE_NEW_TOKENS,
                                       forced_bos_token_id=gen["forced_bos_token_id"], forced_eos_token_id=gen["forced_eos_token_id"],
                                       no_repeat_ngram_size=gen["no_repeat_ngram_size"])[0].tolist()
                    assert g[0] == 2, g
                    rows.append({"text": t, "input_ids": x, "pytorch_fp32": g[1:]})
            tmp = export / "pytorch.json.tmp"
            tmp.write_text(json.dumps(rows), encoding="utf-8")
            tmp.rename(export / "pytorch.json")
            stage(root, f"{name}: PyTorch generate, {len(rows)} sentences, {time.time() - t0:.0f} s")
        for p in todo:
            t0 = time.time()
            shutil.rmtree(export / p, ignore_errors=True)
            export_folder(model, export, cross_out=False, merged=False, parts=(p,), subdirs=True)
            (export / p / "DONE").write_text("")
            gc.collect()
            stage(root, f"{name}: {p} exported (TorchScript, {time.time() - t0:.0f} s)")
        del model
        gc.collect()
    L = 12

    def folder(sub: str, write) -> Path:
        dest = root / f"{name}-{sub}"
        if (dest / "config.json").exists():
            return dest
        part = root / f"{name}-{sub}.part"
        shutil.rmtree(part, ignore_errors=True)
        part.mkdir(parents=True)
        t0 = time.time()
        write(part)
        for f in ("config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json"):
            shutil.copy(common / f, part / f)
        part.rename(dest)
        gc.collect()
        stage(root, f"{name}-{sub}: {time.time() - t0:.0f} s, {sum(p.stat().st_size for p in dest.rglob('*')) / 1e9:.2f} GB")
        return dest

    def optimum(part: Path) -> None:
        for f in ("encoder_model.onnx", "decoder_model.onnx", "decoder_with_past_model.onnx"):
            m = onnx.load(str(export / f[:-5] / f))
            hv.save(m, part / f, external=True)
            del m
            gc.collect()

    merged = work / "merged" / "decoder_model_merged.onnx"
    if not (work / "merged" / "DONE").exists():
        shutil.rmtree(work / "merged", ignore_errors=True)
        t0 = time.time()
        hv.merge_decoders(export / "decoder_model" / "decoder_model.onnx", export / "decoder_with_past_model" / "decoder_with_past_model.onnx",
                          merged, external=True)
        (work / "merged" / "DONE").write_text("")
        stage(root, f"{name}: merged decoder, {time.time() - t0:.0f} s")

    def variant(suffix: str, make):
        def write(part: Path) -> None:
            make(export / "encoder_model" / "encoder_model.onnx", part / "onnx" / f"encoder_model_{suffix}.onnx")
            gc.collect()
            make(merged, part / "onnx" / f"decoder_model_merged_{suffix}.onnx")
        return write

    opt = folder("optimum", optimum)
    q8 = folder("q8", variant("quantized", hv.quantize_q8))
    fp16 = folder("fp16", variant("fp16", hv.to_fp16))
    ref_path = work / "reference.json"
    if not ref_path.exists():
        rows = json.loads((export / "pytorch.json").read_text(encoding="utf-8"))
        decode = dict(start=2, eos=2, max_new_tokens=LARGE_NEW_TOKENS, forced_bos=gen["forced_bos_token_id"],
                      forced_eos=gen["forced_eos_token_id"], no_repeat_ngram_size=gen["no_repeat_ngram_size"])
        for key, make in (("onnxruntime_fp32_optimum", lambda: hv.OrtSeq2Seq(opt / "encoder_model.onnx", opt / "decoder_model.onnx",
                                                                              opt / "decoder_with_past_model.onnx", layers=L)),
                          ("onnxruntime_q8", lambda: hv.OrtSeq2Seq(q8 / "onnx" / "encoder_model_quantized.onnx",
                                                                   merged=q8 / "onnx" / "decoder_model_merged_quantized.onnx", layers=L)),
                          ("onnxruntime_fp16", lambda: hv.OrtSeq2Seq(fp16 / "onnx" / "encoder_model_fp16.onnx",
                                                                     merged=fp16 / "onnx" / "decoder_model_merged_fp16.onnx", layers=L))):
            t0 = time.time()
            m = make()
            for r in rows:
                r[key] = m.greedy(r["input_ids"], **decode)[0]
            del m
            gc.collect()
            same = sum(r[key] == r["pytorch_fp32"] for r in rows)
            stage(root, f"{name}: {key} greedy equals PyTorch fp32 on {same} of {len(rows)} ({time.time() - t0:.0f} s)")
        ref = {"model": name, "generation": gen, "start": 2,
               "note": "pytorch_fp32: transformers generate() on the random-weight model before export; onnxruntime_*: onnxruntime-python "
                       "greedy (KV cache; merged decoders through use_cache_branch) on the files of each folder, with the same forced "
                       "tokens, no_repeat_ngram_size and max_new_tokens; ids leave out the decoder start token",
               "agreement": {k: sum(r[k] == r["pytorch_fp32"] for r in rows)
                             for k in ("onnxruntime_fp32_optimum", "onnxruntime_q8", "onnxruntime_fp16")},
               "sentences": rows}
        tmp = ref_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(ref, indent=1), encoding="utf-8")
        tmp.rename(ref_path)
    for d in (opt, q8, fp16):
        shutil.copy(ref_path, d / "reference.json")
    shutil.rmtree(work)
    stage(root, f"{name}: complete")


def stage(root: Path, msg: str) -> None:
    """A line in the log, and root/STATUS rewritten: which sub-folders are complete."""
    line = f"{time.strftime('%H:%M:%S')} {msg}"
    print(line, flush=True)
    done = sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(".") and not p.name.endswith(".part")
                  and (p / "config.json").exists())
    with_ref = [d for d in done if (root / d / "reference.json").exists()]
    text = (f"updated {time.strftime('%Y-%m-%d %H:%M:%S %Z')} by training/hf_test_models.py --large (pid {os.getpid()})\n"
            f"complete sub-folders (files written; reference.json added when all three of a model are done):\n"
            + "".join(f"  {d}{'  (with reference.json)' if d in with_ref else ''}\n" for d in done)
            + f"last step: {line}\n")
    tmp = root / "STATUS.tmp"
    tmp.write_text(text, encoding="utf-8")
    tmp.rename(root / "STATUS")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="test/fixtures/hf")
    ap.add_argument("--only", default="marian,bart,t5,m2m100")
    ap.add_argument("--train-minutes", type=float, default=8)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--tjs-layout", help="only move an exported Optimum folder into transformers.js's layout")
    ap.add_argument("--bench-marian", help="only write the opus-mt-size random Marian for bench/ to this folder")
    ap.add_argument("--variants", action="store_true", help="only write marian-q8 and marian-fp16 beside the marian folder in --out")
    ap.add_argument("--large", nargs="?", const="/tmp/hf-large", help="only write the large random folders to this folder (/tmp/hf-large)")
    a = ap.parse_args()
    require_transformers()
    torch.set_num_threads(a.threads)
    if a.tjs_layout:
        transformersjs_layout(Path(a.tjs_layout))
        return
    if a.bench_marian:
        dest = Path(a.bench_marian)
        if (dest / "config.json").exists():
            print(f"{dest} exists: nothing to do (remove it to write it again)")
            return
        # Written beside it and renamed when complete, so a stopped run leaves no folder the bench would take.
        part = dest.with_name(dest.name + ".part")
        shutil.rmtree(part, ignore_errors=True)
        t0 = time.time()
        bench_marian(part, Path(a.out) / "marian")
        shutil.rmtree(dest, ignore_errors=True)
        part.rename(dest)
        print(f"{dest}: {time.time() - t0:.0f} s, {sum(p.stat().st_size for p in dest.rglob('*')) / 1e6:.0f} MB", flush=True)
        return
    texts = lines("test_2016_flickr.en.gz")[:N_REF]
    if a.variants:
        marian_variants(Path(a.out), texts)
        return
    if a.large:
        root = Path(a.large)
        root.mkdir(parents=True, exist_ok=True)
        names = a.only.split(",") if a.only != ap.get_default("only") else list(LARGE_ORDER)
        for name in names:
            assert name in LARGE_ORDER, name
            large(root, name, texts[:N_LARGE])
        return
    root = Path(a.out)
    for name in a.only.split(","):
        dest = root / name
        if dest.exists():
            shutil.rmtree(dest)
        t0 = time.time()
        {"marian": lambda: marian(dest, a.train_minutes, texts), "bart": lambda: bart(dest, texts), "t5": lambda: t5(dest, texts),
         "m2m100": lambda: m2m100(dest, texts), "marian-optimum": lambda: marian_optimum(dest, root / "marian", texts),
         "marian-dynamo": lambda: marian_dynamo(dest, root / "marian", texts)}[name]()
        print(f"{name}: {time.time() - t0:.0f} s, {sum(p.stat().st_size for p in dest.rglob('*')) / 1e6:.1f} MB", flush=True)


if __name__ == "__main__":
    main()
