"""Export a transformer.Transformer to the one-file ONNX contract (docs/model-format.md, "Transformer models"),
with its parity fixture and model card; the counterpart of export.py for `--kind transformer`.

The graph has the v1 inputs plus two optional step inputs, `head_gate` and `head_override`
[B, L, H], and the step outputs `logits`, `next_state` (the key/value cache), `attention` (the
mean of the cross-attention heads) and `cross_attention` [B, L, H, S]."""

import onnx
import torch
import torch.nn as nn

from . import data, metadata
from . import transformer as tf
from .export import _table, beam_text, source_unit, store_float16, vocabulary_text
from .export import write_parity as shared_write_parity
from .transformer import FLOAT16_SUFFIX

INPUTS = ["src_ids", "src_mask", "encoder_states", "state", "prev_token", "step", "attn_override", "override_on",
          "head_gate", "head_override"]
ENCODER_OUTPUTS = ["encoder_out", "decoder_init"]
STEP_OUTPUTS = tf.STEP_OUTPUTS  # logits, next_state, attention, cross_attention


class Combined(nn.Module):
    """Both parts in one graph; the app cuts them apart by output name. The cross-attention keys
    and values of the encoder states are computed inside the step (from `encoder_states`); the
    app moves those nodes to the encoder part itself."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, src_ids, src_mask, encoder_states, state, prev_token, step, attn_override, override_on,
                head_gate, head_override):
        enc, init = self.model.encode(src_ids, src_mask)
        o = self.model.step(prev_token, state, encoder_states, src_mask, step, attn_override,
                            override_on.unsqueeze(1), head_gate, head_override)
        return (enc, init) + tuple(o[k] for k in STEP_OUTPUTS)


def dummy_inputs(model, B=2, S=5, seed=0):
    """Inputs for tracing and for the ONNX-vs-PyTorch checks: a mid-sentence step (t = 3) on a
    cache of three positions filled with random values, so the cache read and append are exercised."""
    g = torch.Generator().manual_seed(seed)
    L, H = model.dec_layers_n, model.heads
    src = torch.randint(4, 50, (B, S), generator=g)
    mask = torch.ones(B, S)
    if B > 1:
        src[1, S - 2:] = 0
        mask[1, S - 2:] = 0
    return (src, mask, torch.randn(B, S, model.mem, generator=g) * mask.unsqueeze(2),
            torch.randn(B, 3 * model.state_dim, generator=g), torch.randint(4, 50, (B,), generator=g),
            torch.full((B,), 3.0), torch.zeros(B, S), torch.zeros(B), torch.ones(B, L, H), torch.zeros(B, L, H))


def export_graph(model, onnx_path):
    """The graph alone (no metadata): traced, sizes fixed, weights stored as float16; returns the
    ModelProto. export_onnx adds the metadata; reexport.py copies an older file's."""
    model.eval()
    BS = {0: "batch", 1: "src_len"}
    B = {0: "batch"}
    # The cache grows by one position a step, so its width is dynamic too.
    axes = {"src_ids": BS, "src_mask": BS, "encoder_states": BS, "attn_override": BS, "state": {0: "batch", 1: "cache"},
            "prev_token": B, "step": B, "override_on": B, "head_gate": B, "head_override": B, "encoder_out": BS,
            "decoder_init": B, "logits": B, "next_state": {0: "batch", 1: "next_cache"}, "attention": BS,
            "cross_attention": {0: "batch", 3: "src_len"}}
    torch.onnx.export(Combined(model), dummy_inputs(model), onnx_path, input_names=INPUTS,
                      output_names=ENCODER_OUTPUTS + STEP_OUTPUTS, dynamic_axes=axes, opset_version=17,
                      # No folding: every parameter stays an initializer under its PyTorch name
                      # (transformer.load_from_onnx reads them back), as export.py does.
                      do_constant_folding=False)
    m = onnx.load(onnx_path)
    # The tracer leaves these sizes symbolic; they are fixed by the model, so say so.
    fixed = {"decoder_init": [None, 0], "cross_attention": [None, model.dec_layers_n, model.heads, None]}
    for o in m.graph.output:
        for dim, v in zip(o.type.tensor_type.shape.dim, fixed.get(o.name, [])):
            if v is not None:
                dim.dim_value = v
    m.producer_name = "attention-lens training/export_transformer.py"
    store_float16(m)
    missing = set(model.state_dict()) - {i.name[len("model."):].removesuffix(FLOAT16_SUFFIX) for i in m.graph.initializer}
    assert not missing, f"parameters not kept as initializers: {sorted(missing)}"
    return m


def export_onnx(model, src_vocab, tgt_vocab, info, onnx_path, fixture_path, sentences, with_card, card_path):
    model.eval()
    info["state_size"] = model.state_dim
    old = info["sizes"]
    info["sizes"] = dict(model.sizes(), **{k: old[k] for k in ("min_freq", "src_merges", "tgt_merges") if k in old})
    m = export_graph(model, onnx_path)
    metadata.write(m, metadata.transformer(info, src_vocab, tgt_vocab, model), onnx_path)
    write_parity(model, src_vocab, tgt_vocab, info, sentences, fixture_path)
    if with_card:
        write_card(info, card_path)
    print(f"wrote {onnx_path}", flush=True)


def write_parity(model, src_vocab, tgt_vocab, info, sentences, path):
    """export.write_parity's format (greedy tokens with `<unk>` masked, the per-step `attention`,
    beam-5 tokens, source pieces, texts) from the Transformer's greedy and beam search, plus
    `cross_attention`: per greedy step (the `</s>` step included) the [L][H][S] weights of every
    head, rounded to 6 decimals."""
    def more(case, src, mask, out, steps):
        # The trained weights through both paths: teacher-forced (training) and the cached step.
        diff = tf.check_step_matches_forward(model, src, mask, torch.tensor([([data.BOS] + out[0])[: model.max_target]]), tol=1e-3)
        print(f"  step vs forward, {case['source'][:30]!r}...: max logit difference {diff:.1e}", flush=True)
        case["cross_attention"] = [[[[round(w, 6) for w in head] for head in layer] for layer in st["cross_attention"][0].tolist()]
                                   for st in steps]

    shared_write_parity(model, src_vocab, tgt_vocab, info, sentences, path, decode=tf.greedy, beam=tf.beam_search, more=more)


def write_card(info, path):
    t, s, tr, cfg = info["test"], info["sizes"], info["training"], info["cfg"]
    bm = t.get("beam")
    unit = source_unit(info["src_spec"])
    eos = (" Cross-attention never reads the source `</s>` (the encoder's self-attention does): with it"
           " readable, the Transformers put 2 % (en→fr) and 7.1 % (zh→en) of each step's weight there (see training/README.md, \"The source `</s>`\")."
           if tr.get("attend_eos") is False else "")

    tok = vocabulary_text(s)
    beam_part = beam_text(bm, unit)
    text = f"""# {info['name']}

{cfg['src_lang']} → {cfg['tgt_lang']}, attention: `transformer` (multi-head self- and cross-attention).

- **Data**: {cfg['training_data']}. Licence: {cfg['licence']}.
- **Architecture**: Transformer (Vaswani et al., 2017) with pre-layer normalisation, {s['enc_layers']} encoder and
  {s['dec_layers']} decoder layers, d_model {s['d_model']}, {s['heads']} heads, feed-forward {s['ffn']}, sinusoidal
  positions, output layer tied to the target embedding, {s['parameters']:,} parameters. The decoder state is a
  key/value cache that grows by one position a step; a translation has at most {s['max_target']} tokens (the longest
  training target). The attention
  the app shows is the mean of the {s['dec_layers']} × {s['heads']} cross-attention heads; each head is in `cross_attention`.{eos}
- **Vocabulary**: source {tok(info['src_spec'], s['src_vocab'])}; target {tok(info['tgt_spec'], s['tgt_vocab'])}
  (the same as the {cfg['src_lang']}→{cfg['tgt_lang']} RNN models). `<unk>` in the test sources: {t.get('src_unknown_tokens', '?')} tokens.
- **Training**: {tr['pairs']:,} pairs, {tr['epochs']} epochs, batch {tr['batch']} (batches re-formed every epoch),
  Adam lr {tr['lr']}, {tr['schedule']}, dropout {tr['dropout']}, label smoothing 0.1, weights averaged over
  epochs {', '.join(map(str, tr['averaged_epochs']))}; {tr.get('cpu_minutes', tr['minutes'])} CPU minutes ({tr['minutes']} minutes wall clock)
  on {tr['threads']} CPU thread(s), seed {tr['seed']}.
- **Test**: {t['set']}, {t['sentences']} sentences, sacreBLEU-13a corpus BLEU; `<unk>` is never emitted
  (masked in decoding); at most min(2·S + 10, {s['max_target']}) output steps.

**Greedy decoding**: **{t['bleu']}** case-insensitive, {t['bleu_cased']} cased.

| source length ({unit}) | sentences | BLEU | BLEU (cased) |
| --- | --- | --- | --- |
{_table(t)}
{beam_part}
Measured by `/usr/bin/python3 training/train.py --pair {info['pair']} --kind transformer` (which trains,
evaluates and exports); `attention-lens eval` re-measures it from the ONNX file.
"""
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
