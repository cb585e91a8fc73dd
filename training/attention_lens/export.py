"""Export a trained model to the one-file ONNX contract (docs/model-format.md) and write its
parity fixture: PyTorch's own greedy outputs for a few sentences, which a vitest test compares
with what onnxruntime-node computes from the exported file."""
import copy
import json

import numpy as np
import onnx
import torch
import torch.nn as nn
from onnx import numpy_helper

from . import data, metadata
from .models import FLOAT16_SUFFIX, beam_search, greedy, step_outputs
from .tokenizer import detokenize, tokenize

ENCODER_OUTPUTS = ["encoder_out", "decoder_init"]
INPUTS = ["src_ids", "src_mask", "encoder_states", "state", "prev_token", "step", "attn_override", "override_on"]


class Combined(nn.Module):
    """Both parts in one graph; the app cuts them apart again by output name."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, src_ids, src_mask, encoder_states, state, prev_token, step, attn_override, override_on):
        enc, init = self.model.encode(src_ids, src_mask)
        o = self.model.step(prev_token, state, encoder_states, src_mask, step, attn_override,
                            override_on.unsqueeze(1))
        return (enc, init) + tuple(o[k] for k in step_outputs(self.model.kind))


def _dummy(model):
    B, S = 2, 5
    src = torch.randint(4, 10, (B, S))
    mask = torch.ones(B, S)
    Sm = 1 if model.kind == "none" else S
    return (src, mask, torch.zeros(B, Sm, model.mem), torch.zeros(B, model.state_dim),
            torch.full((B,), 2, dtype=torch.long), torch.zeros(B), torch.zeros(B, Sm), torch.zeros(B))


def export_graph(model, onnx_path):
    """Writes the graph alone (no metadata). The decoder cell goes out as one ONNX GRU node, from a
    copy, so the model the parity fixture is computed with stays the one that was trained."""
    model.eval()
    exported = copy.deepcopy(model)
    exported.cell.as_onnx_gru()
    outs = ENCODER_OUTPUTS + step_outputs(model.kind)
    S_axes = {0: "batch", 1: "src_len"}
    axes = {"src_ids": S_axes, "src_mask": S_axes, "encoder_states": S_axes, "attn_override": S_axes,
            "state": {0: "batch"}, "prev_token": {0: "batch"}, "step": {0: "batch"}, "override_on": {0: "batch"},
            "encoder_out": S_axes, "decoder_init": {0: "batch"}, "logits": {0: "batch"},
            "next_state": {0: "batch"}, "attention": S_axes, "scores": S_axes, "gaussian": S_axes,
            "align": S_axes, "position": {0: "batch"}, "window": {0: "batch"}}
    if model.kind == "none":
        axes["encoder_states"] = axes["encoder_out"] = {0: "batch"}
    torch.onnx.export(Combined(exported), _dummy(model), onnx_path, input_names=INPUTS, output_names=outs,
                      dynamic_axes={k: v for k, v in axes.items() if k in INPUTS + outs}, opset_version=17,
                      # No folding: every parameter stays an initializer under its PyTorch name (the
                      # GRU's as model.cell.gru_W/R/B, see models.gru_weights_from_onnx), so the
                      # benchmark can load the very same weights back into PyTorch. onnxruntime
                      # folds the constants itself when it builds the session.
                      do_constant_folding=False)


def store_float16(m, min_size=1024):
    """Stores the weight matrices as float16 (half the file), each read through a Cast to float32
    under its own name, so the graph computes in float32 as before and onnxruntime folds the
    Casts once when it builds a session. train.py rounds the weights to float16
    (models.round_to_float16) before it evaluates, so the card and the parity fixture describe
    this file. The initializer is renamed `<name>.float16` (bench_torch.load and
    transformer.load_from_onnx map it back). Shared by the RNNs and the Transformer."""
    casts = []
    for t in m.graph.initializer:
        if t.name.startswith("model.") and t.data_type == onnx.TensorProto.FLOAT and np.prod(t.dims) >= min_size:
            a = numpy_helper.to_array(t)
            assert np.array_equal(a.astype(np.float16).astype(np.float32), a), f"{t.name} is not rounded to float16"
            name = t.name
            t.CopyFrom(numpy_helper.from_array(a.astype(np.float16), name + FLOAT16_SUFFIX))
            casts.append(onnx.helper.make_node("Cast", [name + FLOAT16_SUFFIX], [name], to=onnx.TensorProto.FLOAT,
                                               name=f"float16/{name}"))
    nodes = casts + list(m.graph.node)
    del m.graph.node[:]
    m.graph.node.extend(nodes)


def export_onnx(model, src_vocab, tgt_vocab, info, onnx_path, fixture_path, sentences, with_card, card_path, float16=False):
    info["state_size"] = model.state_dim
    metadata.check_state_width(model)
    export_graph(model, onnx_path)
    m = onnx.load(onnx_path)
    m.producer_name = "attention-lens training/export.py"
    if float16:
        store_float16(m)
        info["float16"] = True
    metadata.write(m, metadata.translation(info, src_vocab, tgt_vocab), onnx_path)
    write_parity(model, src_vocab, tgt_vocab, info, sentences, fixture_path)
    if with_card:
        write_card(info, card_path)
    print(f"wrote {onnx_path}", flush=True)


def write_parity(model, src_vocab, tgt_vocab, info, sentences, path, decode=greedy, beam=beam_search, more=None):
    """PyTorch's greedy tokens (with `<unk>` masked), attention and p_t, plus the beam-5 tokens,
    for a few sentences; the source pieces and the detokenized output too. `decode` and `beam` are
    the model's greedy and beam search (export_transformer passes the Transformer's);
    `more(case, src, mask, out, steps)` adds a model kind's own fields to a case."""
    si = {w: i for i, w in enumerate(src_vocab)}
    spec, tspec = info["src_spec"], info["tgt_spec"]
    cases = []
    for s in sentences:
        ids = data.encode(s, spec, si, 100)
        src = torch.tensor([ids])
        mask = torch.ones(1, len(ids))
        out, steps = decode(model, src, mask, max_len=2 * len(ids) + 10)
        case = {"source": s, "src_tokens": tokenize(s, spec), "src_ids": ids, "tgt_ids": out[0],
                "text": detokenize([tgt_vocab[i] for i in out[0]], tspec)}
        # steps include the one that emitted </s>, as the engine's matrices do
        for key in ("attention", "position"):
            if steps and key in steps[0]:
                case[key] = [st[key][0].tolist() for st in steps]
        b = beam(model, src, mask, K=5)[0]
        case["beam5_ids"] = b
        case["beam5_text"] = detokenize([tgt_vocab[i] for i in b], tspec)
        if more:
            more(case, src, mask, out, steps)
        cases.append(case)
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"model": info["name"], "cases": cases}, f, ensure_ascii=False)


def _table(t):
    return "\n".join(f"| {b['bucket']} | {b['sentences']} | {b['bleu']} | {b['bleu_cased']} |" for b in t["by_length"])


def vocabulary_text(sizes):
    """The card's description of one side's tokenizer and vocabulary (shared with export_transformer)."""
    def tok(spec, n):
        if spec["type"] == "bpe":
            return f"BPE, {len(spec['merges'])} merges, {n} pieces"
        if spec["type"] == "jieba":
            return f"jieba words (dictionary, no HMM) split by BPE, {len(spec['merges'])} merges, {n} pieces"
        return f"{spec['type']}, {n} tokens (min. frequency {sizes.get('min_freq')})"
    return tok


def beam_text(bm, unit):
    """The card's beam-search section, empty without a beam score (shared with export_transformer)."""
    if not bm:
        return ""
    return f"""
**Beam search, K = {bm['size']}** (length penalty α = {bm['length_penalty']}): **{bm['bleu']}** case-insensitive, {bm['bleu_cased']} cased.

| source length ({unit}) | sentences | BLEU | BLEU (cased) |
| --- | --- | --- | --- |
{_table(bm)}
"""


def source_unit(spec):
    """What a source length is counted in, for a card's tables."""
    return {"char": "characters", "jieba": "jieba words"}.get(spec["type"], "words")


def write_card(info, path):
    t, s, tr = info["test"], info["sizes"], info["training"]
    cfg = info["cfg"]
    kind = info["kind"]
    extra = f" Window half-width D = {info['window']} (σ = D/2)." if kind.startswith("local") else ""
    if tr.get("attend_eos") is False and kind != "none":
        extra += (" Attention never reads the source `</s>`: with it attendable, the additive scores parked 18–42 % of"
                  " each step's weight there (see training/README.md, \"The source `</s>`\").")
    bm = t.get("beam")
    unit = source_unit(info["src_spec"])

    tok = vocabulary_text(s)
    beam_part = beam_text(bm, unit)
    ini = tr.get("initialised_from")
    init_text = (f"initialised from `{ini['file']}` (the previous model of this kind: {ini['epochs']} epochs,"
                 f" {ini['cpu_minutes']} CPU minutes, greedy BLEU {ini['bleu']}; sha256 {ini['sha256'][:12]}…), then "
                 if ini else "")
    float16_text = ("\n- **File**: the weight matrices are stored as float16 (read through Casts to float32); every score"
                    " here was measured with those rounded weights." if info.get("float16") else "")
    text = f"""# {info['name']}

{cfg['src_lang']} → {cfg['tgt_lang']}, attention: `{kind}`.{extra}

- **Data**: {cfg['training_data']}. Licence: {cfg['licence']}.
- **Architecture**: bidirectional GRU encoder ({s['enc_hidden']} per direction), GRU decoder ({s['dec_hidden']}),
  embeddings {s['emb']} (output layer tied to the target embedding), {s['parameters']:,} parameters.
- **Vocabulary**: source {tok(info['src_spec'], s['src_vocab'])}; target {tok(info['tgt_spec'], s['tgt_vocab'])}.
  `<unk>` in the test sources: {t.get('src_unknown_tokens', '?')} tokens.
- **Training**: {init_text}{tr['pairs']:,} pairs, {tr['epochs']} epochs, batch {tr['batch']} (batches re-formed every epoch),
  Adam lr {tr['lr']}, {tr['schedule']}, dropout {tr['dropout']}, label smoothing 0.1, weights averaged over
  epochs {', '.join(map(str, tr['averaged_epochs']))}; {tr.get('cpu_minutes', tr['minutes'])} CPU minutes ({tr['minutes']} minutes wall clock,
  two models training side by side) on {tr['threads']} CPU thread(s), seed {tr['seed']}.
- **Test**: {t['set']}, {t['sentences']} sentences, sacreBLEU-13a corpus BLEU; `<unk>` is never emitted
  (masked in decoding).{float16_text}

**Greedy decoding**: **{t['bleu']}** case-insensitive, {t['bleu_cased']} cased.

| source length ({unit}) | sentences | BLEU | BLEU (cased) |
| --- | --- | --- | --- |
{_table(t)}
{beam_part}
Measured by `/usr/bin/python3 training/train.py --pair {info['pair']} --kind {kind}` (which trains,
evaluates and exports); `attention-lens eval` re-measures it from the ONNX file.
"""
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
