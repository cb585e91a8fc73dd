"""Export your own encoder-decoder to the Attention Lens model file (docs/model-format.md).

One file you can copy next to your model; it needs only torch and onnx (onnxruntime is used
for a quick decode when it is installed). You hand it two callables and your vocabularies:

    from attention_lens_export import export_translation

    code = export_translation(
        "en-de-dot.onnx",
        encoder=model.encode,  # (src_ids [B,S] long, src_mask [B,S] float) -> (encoder_out [B,S,M], state)
        step=model.step,       # (prev_token [B], state, encoder_states, src_mask, ...) -> dict, see below
        attention="luong-dot",
        src_vocab=src_itos, tgt_vocab=tgt_itos,
        special_tokens={"pad": "<blank>", "unk": "<unk>", "bos": "<s>", "eos": "</s>"},
        src_tokenizer={"type": "word"}, tgt_tokenizer="tokenizer.json",
        src_lang="en", tgt_lang="de",
    )

What it does for you:

- **State.** Your state may be a tensor [B, Z], or any tuple/list of tensors such as an LSTM's
  (h, c), each [layers, B, H]: it is packed into the one [B, Z] float32 tensor the contract
  wants and unpacked again before each call of your `step`. Tensors with three dimensions are
  taken as PyTorch RNN states (batch second) unless you say otherwise with `state_batch_dims`.
- **Inputs.** Your `step` is called as `step(prev_token, state, encoder_states, src_mask,
  **extra)`, where `extra` holds those of `step` (the output position t, float [B]),
  `attn_override` ([B, S]) and `override_on` ([B]) that its signature names (or all of them with
  **kwargs). Take `attn_override`/`override_on` and use the override in place of your weights,
  before the context vector, and the app's what-if view works:
  `weights = override_on[:, None] * attn_override + (1 - override_on[:, None]) * weights`.
- **Outputs.** `step` returns a dict with `logits` [B, V], the new state (`state` or
  `next_state`), and for attention models `attention` and `scores` [B, S]; local models add
  `position` [B], `window` [B, 2], `gaussian` and `align` [B, S]. A tuple
  `(logits, state, attention, scores)` works too.
- **Dynamic axes** for every tensor (batch and source length), opset 17, one self-contained file.
- **Metadata**: every `al.*` key: vocabularies, tokenizers (a dict, "word"/"char", a
  tokenizer.json path or a `tokenizers.Tokenizer`), special tokens given by id or by their
  string under any of the usual names (`start`/`sos`/`cls` → bos, `end`/`sep` → eos, …),
  the attention kind, D, the score function of local attention.
- **Checks**: the same as `attention-lens check` when the app's command is found (on PATH, in
  $ATTENTION_LENS, or this repository's bin/), else a Python subset, with a loud note on stderr
  saying how to point ATTENTION_LENS at the app. The exit code is returned:
  0 every feature works, 1 some will not (printed), 2 the app cannot open the file.
  ATTENTION_LENS=python forces the Python subset (without the note).
- **Refusals before writing** (ExportError): a decoder state whose width depends on the source
  length (a coverage vector, say), and for a transformer what its checks below list.

**Transformers** (`attention="transformer"`, docs/model-format.md "Transformer models"): the
same call, with `max_target` (T, the most output steps your step supports) and optionally
`layers`/`heads` (else read from what the step returns). Your `step` must take `step` (the output
position t, its position encoding and cache slot) and should take `head_gate` and
`head_override` ([B, L, H]: scale head (l, h)'s context by the gate; where the override is 1, that
head uses `attn_override`), plus `attn_override`/`override_on` (every head). It returns a dict
with `logits`, the new state and `cross_attention` [B, L, H, S], every head's weights after the
overrides and before the gate (or the tuple `(logits, state, cross_attention)`). `attention`, the
heads' mean as used (`Σ g·w / Σ g`), is computed for you unless the step returns it too. The
state is anything the step needs (a key/value cache, cached layer inputs, …), packed like an
RNN's, every tensor batch first unless `state_batch_dims` says otherwise. Before writing, the
helper runs your step in PyTorch and refuses (ExportError) what the app would: heads that do not
agree with `layers`/`heads`, rows that do not sum to 1 over the real positions, overrides or
gates that change nothing, a step that ignores `step`, or one that fails at t = T − 1.
"""
import inspect
import json
import math
import os
import shutil
import subprocess
import sys

import onnx
import torch
import torch.nn as nn

FORMAT_VERSION = "1"
KINDS = ("none", "bahdanau", "luong-dot", "luong-general", "luong-concat", "local-m", "local-p", "transformer")
ROLE_NAMES = {
    "pad": ("pad", "padding", "blank"),
    "unk": ("unk", "unknown"),
    "bos": ("bos", "sos", "start", "cls", "go"),
    "eos": ("eos", "end", "sep", "stop"),
}
EXTRA_INPUTS = ("step", "attn_override", "override_on")
HEAD_INPUTS = ("head_gate", "head_override")
LOCAL_OUTPUTS = ("position", "window", "gaussian", "align")


class ExportError(ValueError):
    """Something the app would refuse, said before the file is written."""


# ---------------------------------------------------------------------------------------------
# State packing


class StatePacker:
    """Flattens a state (a tensor or nested tuples/lists of tensors) to [B, Z] and back."""

    def __init__(self, example, batch_dims=None):
        self.structure = self._structure(example)
        leaves = self._leaves(example)
        if batch_dims is None:
            batch_dims = [1 if t.dim() == 3 else 0 for t in leaves]
        self.batch_dims = list(batch_dims)
        self.shapes = []  # per leaf: the shape without the batch, in [B, ...] order
        for t, d in zip(leaves, self.batch_dims):
            if not torch.is_floating_point(t):
                raise ExportError("every state tensor must be a float tensor")
            moved = t.movedim(d, 0)
            self.shapes.append(tuple(moved.shape[1:]))
        self.sizes = [int(math.prod(s)) for s in self.shapes]

    @property
    def size(self):
        return sum(self.sizes)

    def _structure(self, s):
        if torch.is_tensor(s):
            return None
        if isinstance(s, (tuple, list)):
            return (type(s), [self._structure(x) for x in s])
        raise ExportError(f"a state must be a tensor or a tuple/list of tensors, not {type(s).__name__}")

    def _leaves(self, s):
        if torch.is_tensor(s):
            return [s]
        return [t for x in s for t in self._leaves(x)]

    def pack(self, state):
        parts = []
        for t, d in zip(self._leaves(state), self.batch_dims):
            moved = t.movedim(d, 0)
            parts.append(moved.reshape(moved.shape[0], -1).float())
        return parts[0] if len(parts) == 1 else torch.cat(parts, 1)

    def unpack(self, packed):
        leaves, at = [], 0
        for shape, size, d in zip(self.shapes, self.sizes, self.batch_dims):
            t = packed[:, at:at + size].reshape((-1,) + shape)
            leaves.append(t.movedim(0, d))
            at += size
        it = iter(leaves)

        def build(st):
            if st is None:
                return next(it)
            kind, items = st
            return kind(build(x) for x in items)

        return build(self.structure)


# ---------------------------------------------------------------------------------------------
# The wrapper that puts both parts in one graph


def _modules_of(fn):
    """The nn.Modules a callable computes with: itself, the module of a bound method, and for a
    plain function (or lambda) the modules it closes over or names as globals."""
    if isinstance(fn, nn.Module):
        return [fn]
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, nn.Module):
        return [owner]
    found = []
    code = getattr(fn, "__code__", None)
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            v = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        found += [v] if isinstance(v, nn.Module) else _modules_of(v) if callable(v) and getattr(v, "__self__", None) is not None else []
    if code is not None:
        g = getattr(fn, "__globals__", {})
        found += [g[n] for n in code.co_names if isinstance(g.get(n), nn.Module)]
    return found


def _onnx_export(model, example, path, **kw):
    """torch.onnx.export with the TorchScript exporter. From torch 2.9 the default is the dynamo
    exporter, which renames and reorders the inputs (a file the app refuses: "reads the input
    encoder_states, which the app never feeds") and may write the weights to a side file."""
    if "dynamo" in inspect.signature(torch.onnx.export).parameters:
        kw["dynamo"] = False
    torch.onnx.export(model, example, path, **kw)


def _accepted(fn, names):
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return set()
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return set(names)
    return {n for n in names if n in params}


def _as_dict(out, kind):
    if isinstance(out, dict):
        d = dict(out)
        if "next_state" not in d and "state" in d:
            d["next_state"] = d.pop("state")
        return d
    if isinstance(out, (tuple, list)):
        if kind == "transformer":
            keys = ["logits", "next_state", "cross_attention", "attention"]
        else:
            keys = ["logits", "next_state", "attention", "scores"]
        return dict(zip(keys, out))
    raise ExportError(f"step must return a dict (or a tuple), not {type(out).__name__}")


def step_outputs(kind, first="logits"):
    out = [first, "next_state"]
    if kind == "transformer":
        out += ["attention", "cross_attention"]
    elif kind != "none":
        out += ["attention", "scores"]
    if kind.startswith("local"):
        out += list(LOCAL_OUTPUTS)
    return out


def state_width_message(widths):
    """The app's words (src/engine/check.ts) for a state whose width follows the source length;
    `widths` is [(source tokens, state floats), ...] for two lengths."""
    (s1, z1), (s2, z2) = widths
    return (f"the decoder state's width depends on the source length: {z1} floats for a {s1}-token source, {z2} for {s2}. "
            "Attention Lens needs a fixed-width state: keep what grows with the source (a coverage vector, say) in a "
            "fixed-size buffer of max_source floats (padded to that width in the encoder, its first S read in the step), "
            "or compute it in the step from encoder_states and src_mask")


def check_state_width(encoder, packer, special, src_vocab_size, state_batch_dims=None):
    """Refuses (ExportError) a decoder state whose size depends on the source length, before the
    file is written: the traced graph would fix the width of the example (see state_width_message)."""
    widths = []
    for S in (5, 9):
        src = torch.randint(0, src_vocab_size, (1, S))
        src[:, -1] = special["eos"]
        with torch.no_grad():
            _, init = encoder(src, torch.ones(1, S))
        widths.append((S, StatePacker(init, state_batch_dims).size))
    if widths[0][1] != widths[1][1] or widths[0][1] != packer.size:
        raise ExportError(state_width_message(widths))


class _Combined(nn.Module):
    """The encoder and one decoder step side by side; the app cuts them apart by output name."""

    def __init__(self, encoder, step, kind, packer, extras, forecasting=False):
        super().__init__()
        # The modules whose weights the callables use, registered so they are exported as weights
        # (else tracing stops at "Cannot insert a Tensor that requires grad as a constant").
        owners = [o for f in (encoder, step) for o in _modules_of(f)]
        for i, owner in enumerate({id(o): o for o in owners}.values()):
            self.add_module(f"m{i}", owner)
        self.encoder, self.step_fn, self.kind, self.packer, self.extras = encoder, step, kind, packer, extras
        self.forecasting = forecasting
        self.outputs = ["encoder_out", "decoder_init"] + step_outputs(kind, "forecast" if forecasting else "logits")

    def forward(self, src, src_mask, encoder_states, state, prev, step, attn_override, override_on, step_features=None):
        if self.forecasting:
            enc, init = self.encoder(src)
        else:
            enc, init = self.encoder(src, src_mask)
        given = {"step": step, "attn_override": attn_override, "override_on": override_on}
        kwargs = {k: given[k] for k in self.extras}
        if self.forecasting:
            out = self.step_fn(prev, self.packer.unpack(state), encoder_states, step_features, **kwargs)
            out = _as_dict(out, self.kind)
            if "forecast" not in out and "logits" in out:
                out["forecast"] = out.pop("logits")
        else:
            out = _as_dict(self.step_fn(prev, self.packer.unpack(state), encoder_states, src_mask, **kwargs), self.kind)
        out["next_state"] = self.packer.pack(out["next_state"])
        missing = [k for k in self.outputs[2:] if k not in out]
        if missing:
            raise ExportError(f"step returned no {', '.join(missing)} (a {self.kind} model returns {', '.join(self.outputs[2:])})")
        return (enc, self.packer.pack(init)) + tuple(out[k] for k in self.outputs[2:])


class _CombinedTransformer(_Combined):
    """The same for a transformer, whose step may also read `head_gate` and `head_override`: the
    graph declares those its step takes, in that order, after the inputs of every model."""

    def forward(self, src, src_mask, encoder_states, state, prev, step, attn_override, override_on, *heads):
        enc, init = self.encoder(src, src_mask)
        given = dict(zip([n for n in HEAD_INPUTS if n in self.extras], heads),
                     step=step, attn_override=attn_override, override_on=override_on)
        out = _as_dict(self.step_fn(prev, self.packer.unpack(state), encoder_states, src_mask,
                                    **{k: given[k] for k in self.extras}), self.kind)
        if "attention" not in out and torch.is_tensor(out.get("cross_attention")):
            out["attention"] = _gated_mean(out["cross_attention"], given.get("head_gate"))
        out["next_state"] = self.packer.pack(out["next_state"])
        missing = [k for k in self.outputs[2:] if k not in out]
        if missing:
            raise ExportError(f"step returned no {', '.join(missing)} (a transformer returns logits, its state and cross_attention)")
        return (enc, self.packer.pack(init)) + tuple(out[k] for k in self.outputs[2:])


def _gated_mean(heads, gate):
    """`attention` from the heads [B, L, H, S]: Σ g·w / Σ g over the heads, the plain mean without
    a gate, a row of zeros when every gate is 0 (the max keeps 0/0 out of the graph)."""
    if gate is None:
        return heads.mean((1, 2))
    g = gate.unsqueeze(3)
    return (heads * g).sum((1, 2)) / g.sum((1, 2)).clamp(min=1e-9)


# ---------------------------------------------------------------------------------------------
# Metadata


def _vocab(v, what):
    if isinstance(v, dict):
        items = sorted(v.items(), key=lambda kv: kv[1])
        if [i for _, i in items] != list(range(len(items))):
            raise ExportError(f"{what}: the ids of a dict vocabulary must be 0..N-1")
        v = [w for w, _ in items]
    v = list(v)
    if len(v) < 4 or not all(isinstance(w, str) for w in v):
        raise ExportError(f"{what} must be a list of at least four strings (the index is the id)")
    return v


def _special(special, src_vocab, tgt_vocab):
    by_role = {}
    for key, value in special.items():
        role = next((r for r, names in ROLE_NAMES.items() if key.lower().strip("<>[]_") in names), None)
        if role is None:
            raise ExportError(f'special token "{key}": name it pad, unk, bos or eos (or start/end, cls/sep, …)')
        by_role[role] = value
    out = {}
    for role in ("pad", "unk", "bos", "eos"):
        if role not in by_role:
            raise ExportError(f'special_tokens lacks "{role}"')
        v = by_role[role]
        if isinstance(v, str):
            ids = {src_vocab.index(v) if v in src_vocab else None, tgt_vocab.index(v) if v in tgt_vocab else None}
            if None in ids:
                raise ExportError(f'the {role} token "{v}" is not in both vocabularies')
            if len(ids) > 1:
                raise ExportError(f'the {role} token "{v}" has different ids in the source and target vocabularies; the app needs one id for both')
            v = ids.pop()
        if not (isinstance(v, int) and 0 <= v < min(len(src_vocab), len(tgt_vocab))):
            raise ExportError(f"the {role} id {v!r} is outside the vocabularies")
        out[role] = v
    return out


def tokenizer_spec(t):
    """A tokenizer spec for the metadata, from a dict, "word"/"char", a tokenizer.json path or a tokenizers.Tokenizer."""
    if isinstance(t, dict):
        return t
    if hasattr(t, "to_str"):
        return {"type": "hf", "json": json.loads(t.to_str())}
    if isinstance(t, str) and t in ("word", "char"):
        return {"type": t}
    if isinstance(t, (str, os.PathLike)) and os.path.isfile(t):
        with open(t, encoding="utf-8") as f:
            return {"type": "hf", "json": json.load(f)}
    raise ExportError(f"tokenizer {t!r}: give a spec dict, \"word\", \"char\", a tokenizer.json path or a tokenizers.Tokenizer")


def _write(path, metadata, fixed=None):
    m = onnx.load(path)
    # Sizes the model fixes (a transformer's L, H and Z) that the tracer may leave symbolic: the
    # app holds them to the metadata.
    for o in m.graph.output:
        for dim, v in zip(o.type.tensor_type.shape.dim, (fixed or {}).get(o.name, [])):
            if v is not None:
                dim.dim_value = v
    del m.metadata_props[:]
    for k, v in metadata.items():
        p = m.metadata_props.add()
        p.key, p.value = k, str(v)
    m.producer_name = "attention_lens_export.py"
    onnx.checker.check_model(m)
    onnx.save(m, path)


# ---------------------------------------------------------------------------------------------
# Export


def _axes(names, kind, forecasting):
    BS = {0: "batch", 1: "src_len"}
    B = {0: "batch"}
    table = {"src_ids": BS, "src_mask": BS, "history": BS, "encoder_states": BS, "attn_override": BS,
             "encoder_out": BS, "attention": BS, "scores": BS, "gaussian": BS, "align": BS,
             "cross_attention": {0: "batch", 3: "src_len"}}
    if kind == "none":  # one fixed context vector: [B, 1, M]
        table["encoder_states"] = table["encoder_out"] = B
    return {n: table.get(n, B) for n in names}


def _export(path, combined, example, input_names, kind, forecasting, opset):
    combined.eval()
    with torch.no_grad():
        _onnx_export(combined, example, path, input_names=input_names, output_names=combined.outputs,
                          dynamic_axes=_axes(input_names + combined.outputs, kind, forecasting),
                          opset_version=opset, do_constant_folding=True)


def export_translation(path, encoder, step, *, attention, src_vocab, tgt_vocab, special_tokens,
                       src_tokenizer, tgt_tokenizer, src_lang, tgt_lang, window_d=None, score=None,
                       local_m_ratio=None, name=None, state_batch_dims=None, metadata=None, opset=17,
                       check=True, layers=None, heads=None, max_target=None):
    """Writes `path` and returns the check's exit code (0, 1 or 2); see the module's docstring.
    A transformer also gives `layers` and `heads` (L decoder layers × H cross-attention heads) and
    `max_target` (T, optional: the most output steps its step supports)."""
    if attention not in KINDS:
        raise ExportError(f'attention "{attention}" is not one of {", ".join(KINDS)}')
    local = attention.startswith("local")
    if local and not (isinstance(window_d, int) and window_d > 0):
        raise ExportError("local attention needs window_d, the half-width D (a positive whole number)")
    src_vocab, tgt_vocab = _vocab(src_vocab, "src_vocab"), _vocab(tgt_vocab, "tgt_vocab")
    special = _special(special_tokens, src_vocab, tgt_vocab)
    # An example batch of 2 with a padded second row: the graph is traced on it.
    S = 5
    src = torch.randint(0, len(src_vocab), (2, S))
    src[:, -1] = special["eos"]
    src_mask = torch.ones(2, S)
    src_mask[1, 3:] = 0
    src[1, 3:] = special["pad"]
    fixed = None
    if attention == "transformer":
        packer, fixed, tf_meta = _export_transformer(path, encoder, step, src, src_mask, special, len(tgt_vocab), layers,
                                                     heads, max_target, state_batch_dims, opset)
    else:
        with torch.no_grad():
            enc, init = encoder(src, src_mask)
        packer = StatePacker(init, state_batch_dims)
        check_state_width(encoder, packer, special, len(src_vocab), state_batch_dims)
        extras = sorted(_accepted(step, EXTRA_INPUTS))
        combined = _Combined(encoder, step, attention, packer, extras)
        Sm = enc.shape[1]
        example = (src, src_mask, enc.detach(), packer.pack(init).detach(), torch.full((2,), special["bos"], dtype=torch.long),
                   torch.zeros(2), torch.zeros(2, Sm), torch.zeros(2))
        names = ["src_ids", "src_mask", "encoder_states", "state", "prev_token", "step", "attn_override", "override_on"]
        _export(path, combined, example, names, attention, False, opset)
    meta = {
        "al.format_version": FORMAT_VERSION,
        "al.task": "translation",
        "al.name": name or os.path.splitext(os.path.basename(path))[0],
        "al.attention": attention,
        "al.src_lang": src_lang,
        "al.tgt_lang": tgt_lang,
        "al.src_vocab": json.dumps(src_vocab, ensure_ascii=False),
        "al.tgt_vocab": json.dumps(tgt_vocab, ensure_ascii=False),
        "al.src_tokenizer": json.dumps(tokenizer_spec(src_tokenizer), ensure_ascii=False),
        "al.tgt_tokenizer": json.dumps(tokenizer_spec(tgt_tokenizer), ensure_ascii=False),
        "al.special_tokens": json.dumps(special),
        "al.state_size": str(packer.size),
    }
    if local:
        meta["al.window_d"] = str(window_d)
        meta["al.score"] = score or "general"
    if attention == "local-m" and local_m_ratio is not None:
        meta["al.local_m_ratio"] = repr(float(local_m_ratio))
    if attention == "transformer":
        meta.update(tf_meta)
    meta.update(metadata or {})
    _write(path, meta, fixed)
    return run_check(path) if check else 0


def _export_transformer(path, encoder, step, src, src_mask, special, V, layers, heads, max_target, state_batch_dims,
                        opset):
    """Checks the step in PyTorch (see _check_transformer), then traces it; returns the packer,
    the output sizes to fix and the transformer's metadata."""
    for value, what in ((layers, "layers"), (heads, "heads")):
        if not (isinstance(value, int) and 1 <= value <= 64):
            raise ExportError(f"a transformer needs {what}, a whole number from 1 to 64 (got {value!r})")
    if max_target is not None and not (isinstance(max_target, int) and max_target > 0):
        raise ExportError(f"max_target is the most output steps the step supports, a positive whole number (got {max_target!r})")
    extras = sorted(_accepted(step, EXTRA_INPUTS + HEAD_INPUTS))
    if "step" not in extras:
        raise ExportError("a transformer's step must take `step`, the output position t (its position encoding and cache "
                          "slot); the app feeds 0, 1, 2, …")
    with torch.no_grad():
        enc, init = encoder(src, src_mask)
    if not (torch.is_tensor(enc) and enc.dim() == 3 and tuple(enc.shape[:2]) == tuple(src.shape)):
        shape = list(enc.shape) if torch.is_tensor(enc) else type(enc).__name__
        raise ExportError(f"encoder_out is {shape} for a source of {list(src.shape)}: a transformer's is [B, S, d], "
                          "one state per source token, which cross_attention weighs")
    # A transformer's state has no RNN convention to follow: every tensor is batch first.
    def leaves(st):
        return 1 if torch.is_tensor(st) else sum(leaves(x) for x in st) if isinstance(st, (tuple, list)) else 1
    packer = StatePacker(init, state_batch_dims if state_batch_dims is not None else [0] * leaves(init))
    head_inputs = [n for n in HEAD_INPUTS if n in extras]
    combined = _CombinedTransformer(encoder, step, "transformer", packer, extras)
    combined.eval()
    _check_transformer(combined, src, src_mask, packer.pack(init), special, V, layers, heads, max_target, head_inputs)
    B, S = src.shape
    example = (src, src_mask, enc.detach(), packer.pack(init).detach(), torch.full((B,), special["bos"], dtype=torch.long),
               torch.zeros(B), torch.zeros(B, S), torch.zeros(B))
    example += tuple(torch.ones(B, layers, heads) if n == "head_gate" else torch.zeros(B, layers, heads) for n in head_inputs)
    names = ["src_ids", "src_mask", "encoder_states", "state", "prev_token", "step", "attn_override", "override_on"]
    _export(path, combined, example, names + head_inputs, "transformer", False, opset)
    Z = packer.size
    fixed = {"decoder_init": [None, Z], "next_state": [None, Z], "cross_attention": [None, layers, heads, None]}
    meta = {"al.layers": str(layers), "al.heads": str(heads), "al.d_model": str(enc.shape[2])}
    if max_target is not None:
        meta["al.max_target"] = str(max_target)
    return packer, fixed, meta


def _check_transformer(combined, src, src_mask, state, special, V, L, H, max_target, head_inputs):
    """Runs the wrapped step in PyTorch as the app will run the file and raises ExportError with
    everything the app would refuse or switch off: the same rules as `attention-lens check`, said
    before anything is written and in terms of the user's step."""
    B, S = src.shape
    problems, notes = [], []

    def run(src=src, mask=src_mask, state=state, t=0, prev=None, override=None, on=0.0, gate=None, head_override=None):
        b, s = src.shape
        with torch.no_grad():
            enc, _ = combined.encoder(src, mask)
            feeds = {"head_gate": torch.ones(b, L, H) if gate is None else gate,
                     "head_override": torch.zeros(b, L, H) if head_override is None else head_override}
            args = (src, mask, enc, state, torch.full((b,), special["bos"]) if prev is None else prev,
                    torch.full((b,), float(t)), torch.zeros(b, s) if override is None else override,
                    torch.full((b,), float(on))) + tuple(feeds[n] for n in head_inputs)
            return dict(zip(combined.outputs, combined(*args)))

    try:
        base = run()
    except ExportError:
        raise
    except Exception as e:  # most often head inputs shaped by layers/heads that the step does not have
        fed = f" (fed {' and '.join(head_inputs)} as [{B}, {L}, {H}] from layers={L}, heads={H})" if head_inputs else ""
        raise ExportError(f"one step fails{fed}: {type(e).__name__}: {str(e).splitlines()[0]}") from e
    w, att = base["cross_attention"], base["attention"]
    if tuple(base["logits"].shape) != (B, V):
        problems.append(f"logits are {list(base['logits'].shape)}, not [B, V] = [{B}, {V}] (V: the target vocabulary)")
    if not torch.is_tensor(w) or tuple(w.shape) != (B, L, H, S):
        shape = list(w.shape) if torch.is_tensor(w) else type(w).__name__
        raise ExportError(f"cross_attention is {shape}, not [B, L, H, S] = [{B}, {L}, {H}, {S}] "
                          f"(layers={L}, heads={H}, a batch of {B} sources of {S} tokens)")
    if tuple(att.shape) != (B, S):
        problems.append(f"attention is {list(att.shape)}, not [B, S] = [{B}, {S}]")
    for what, value in (("logits", base["logits"]), ("cross_attention", w), ("attention", att)):
        if not torch.isfinite(value).all():
            problems.append(f"{what} holds NaN or infinite values at the first step")
    m = src_mask.view(B, 1, 1, S)
    sums = (w * m).sum(3)
    if (sums - 1).abs().max() > 1e-3:
        l, h = divmod(int((sums - 1).abs().amax(0).argmax()), H)
        problems.append(f"the cross_attention of layer {l}, head {h} sums to {sums[:, l, h].tolist()} over the real source "
                        "positions, not 1: return each head's softmax weights")
    if (w * (1 - m)).abs().max() > 1e-6 or w.min() < -1e-6 or w.max() > 1 + 1e-6:
        problems.append("cross_attention puts weight on padding or outside [0, 1]: mask the padded positions (src_mask 0) "
                        "before the softmax")
    if tuple(att.shape) == (B, S) and (att - w.mean((1, 2))).abs().max() > 1e-4:
        problems.append("attention is not the mean of the cross_attention heads (leave it out and the helper computes it)")
    moved = run(t=1)
    if torch.equal(moved["logits"], base["logits"]):
        problems.append("the step returns the same logits at t = 0 and t = 1: it must read `step` (position and cache slot)")
    if tuple(base["next_state"].shape) != tuple(state.shape):
        problems.append(f"the step's new state is {list(base['next_state'].shape)} once packed, the encoder's first state "
                        f"{list(state.shape)}: the state must keep its shapes")
    if max_target is not None:
        try:
            last = run(t=max_target - 1)["logits"]
            if not torch.isfinite(last).all():
                problems.append(f"at t = max_target - 1 = {max_target - 1} the logits hold NaN or infinite values")
        except Exception as e:  # an index past a position table, say
            problems.append(f"the step fails at t = max_target - 1 = {max_target - 1}: {str(e).splitlines()[0]}")
    uniform = src_mask / src_mask.sum(1, keepdim=True)
    want = uniform.view(B, 1, 1, S)
    if {"attn_override", "override_on"} <= set(combined.extras):
        r = run(override=uniform, on=1.0)
        if (r["cross_attention"] - want).abs().max() > 1e-4:
            problems.append("with override_on = 1 the heads do not return attn_override: every head of every layer must use "
                            "it in place of its own weights")
        elif torch.equal(r["logits"], base["logits"]):
            problems.append("override_on = 1 changes no logits: use attn_override for the context, not only in the weights "
                            "you return")
    else:
        notes.append("the step takes no attn_override/override_on, so the app cannot override its attention (what-if)")
    if "head_override" in head_inputs:
        one = torch.zeros(B, L, H)
        one[:, L - 1, H - 1] = 1
        r = run(override=uniform, head_override=one)
        if (r["cross_attention"][:, L - 1, H - 1] - uniform).abs().max() > 1e-4:
            problems.append(f"with head_override 1 for layer {L - 1}, head {H - 1} that head does not return attn_override")
        elif torch.equal(r["logits"], base["logits"]):
            problems.append("head_override changes no logits: the overridden head must use attn_override for its context")
    if "head_gate" in head_inputs:
        if torch.equal(run(gate=torch.zeros(B, L, H))["logits"], base["logits"]):
            problems.append("head_gate changes nothing: multiply each head's context by its gate before the heads are combined")
        gate = torch.ones(B, L, H)
        gate[:, 0, 0] = 0
        r = run(gate=gate)
        kept = (r["cross_attention"] * gate.unsqueeze(3)).sum((1, 2)) / (L * H - 1) if L * H > 1 else torch.zeros(B, S)
        if (r["attention"] - kept).abs().max() > 1e-4:
            problems.append("with head_gate 0 for layer 0, head 0, attention is not the mean of the other heads")
    if not head_inputs:
        notes.append("the step takes no head_gate/head_override, so what-if cannot silence or force one head")
    # The padded row alone, cut to its real tokens: the app's batches must equal single sentences.
    n = int(src_mask[1].sum())
    alone = run(src=src[1:, :n], mask=torch.ones(1, n), state=state[1:])
    diff = max((alone["logits"][0] - base["logits"][1]).abs().max().item(),
               (alone["cross_attention"][0] - w[1, :, :, :n]).abs().max().item())
    if diff > 1e-4:
        notes.append(f"a padded sentence gives other logits or weights than the same sentence alone (by up to {diff:.1e}): "
                     "padding must change nothing (mask it in every attention)")
    for note in notes:
        print(f"  ! {note}")
    if problems:
        raise ExportError("the transformer's step does not meet the contract:\n" + "\n".join(f"  ✗ {p}" for p in problems))


def export_forecaster(path, encoder, step, *, attention, history, horizon, period_minutes, features,
                      step_features, mean, std, seasonal_lags=(), series="value", unit="", window_d=None,
                      name=None, state_batch_dims=None, metadata=None, opset=17, check=True):
    """The forecasting variant: `encoder(history [B,S,F]) -> (encoder_out, state)` and
    `step(prev_value [B], state, encoder_states, step_features [B,G], ...) -> dict` with
    `forecast` [B] (or `logits`), the new state, and the attention outputs of its kind."""
    if attention not in ("none", "luong-general", "local-p"):
        raise ExportError('a forecaster\'s attention is "none", "luong-general" or "local-p"')
    if any(lag > history for lag in seasonal_lags):
        raise ExportError(f"a seasonal lag must not exceed the history of {history} steps")
    hist = torch.randn(2, history, len(features))
    with torch.no_grad():
        enc, init = encoder(hist)
    packer = StatePacker(init, state_batch_dims)
    extras = sorted(_accepted(step, EXTRA_INPUTS))
    combined = _Combined(encoder, step, attention, packer, extras, forecasting=True)
    Sm = enc.shape[1]
    example = (hist, torch.ones(2, Sm), enc.detach(), packer.pack(init).detach(), torch.zeros(2), torch.zeros(2),
               torch.zeros(2, Sm), torch.zeros(2), torch.zeros(2, len(step_features)))
    names = ["history", "src_mask", "encoder_states", "state", "prev_value", "step", "attn_override", "override_on", "step_features"]
    _export(path, combined, example, names, attention, True, opset)
    meta = {
        "al.format_version": FORMAT_VERSION,
        "al.task": "forecasting",
        "al.name": name or os.path.splitext(os.path.basename(path))[0],
        "al.attention": attention,
        "al.state_size": str(packer.size),
        "al.forecast": json.dumps({"history": history, "horizon": horizon, "period_minutes": period_minutes,
                                   "series": series, "unit": unit, "features": list(features),
                                   "step_features": list(step_features), "scaling": {"mean": mean, "std": std},
                                   "seasonal_lags": list(seasonal_lags)}),
    }
    if attention == "local-p":
        meta["al.window_d"] = str(window_d)
    meta.update(metadata or {})
    _write(path, meta)
    return run_check(path) if check else 0


# ---------------------------------------------------------------------------------------------
# Checks


def _app_command():
    here = os.path.dirname(os.path.abspath(__file__))
    given = os.environ.get("ATTENTION_LENS")
    if given == "python":  # the Python subset, even where the app is installed
        return None
    if given:
        return given.split()
    if shutil.which("attention-lens"):
        return ["attention-lens"]
    bin_js = os.path.join(here, os.pardir, "bin", "attention-lens.mjs")
    built = os.path.join(here, os.pardir, "out", "main", "cli.js")
    if shutil.which("node") and os.path.isfile(bin_js) and os.path.isfile(built):
        return ["node", bin_js]
    return None


NOT_FOUND = """
************************************************************************************************
 attention_lens_export: the Attention Lens app was not found, so only the Python checks ran
 (metadata, shapes, one step). The app's own check decodes with your model as the app will
 (batches of different lengths, beam search, what-if, forced decoding) and finds more.
 Point ATTENTION_LENS at the app's command, for example:
     export ATTENTION_LENS="node /path/to/attention-lens/bin/attention-lens.mjs"
 or put `attention-lens` on PATH (ATTENTION_LENS=python runs the Python checks without this note).
************************************************************************************************"""


def run_check(path):
    """`attention-lens check` when the app is here, else the Python subset; prints the report, returns the exit code."""
    cmd = _app_command()
    if cmd:
        r = subprocess.run(cmd + ["check", path], capture_output=True, text=True)
        out = (r.stdout + r.stderr).strip()
        if out:
            print(out)
        return r.returncode
    if os.environ.get("ATTENTION_LENS") != "python":  # asked for on purpose: no need to say it
        print(NOT_FOUND, file=sys.stderr)
    problems, warnings = python_check(path)
    for p in problems:
        print(f"  ✗ {p}")
    for w in warnings:
        print(f"  ! {w}")
    if not problems:
        print(f"{os.path.basename(path)}: the Python checks passed (attention-lens check runs them all)")
    return 1 if problems else 0


def python_check(path):
    """What can be checked without the app: the metadata, the declared shapes and dtypes, NaN in
    the weights, and (with onnxruntime) one step at two batch sizes whose attention rows sum to 1."""
    import numpy as np
    from onnx import numpy_helper

    m = onnx.load(path)
    problems, warnings = [], []
    meta = {p.key: p.value for p in m.metadata_props}
    task = meta.get("al.task", "translation")
    kind = meta.get("al.attention", "")
    need = ["al.format_version", "al.attention", "al.state_size"] + (
        ["al.forecast"] if task == "forecasting" else
        ["al.src_lang", "al.tgt_lang", "al.src_vocab", "al.tgt_vocab", "al.src_tokenizer", "al.tgt_tokenizer", "al.special_tokens"]) + (
        ["al.layers", "al.heads"] if kind == "transformer" else [])
    problems += [f'the metadata lacks "{k}"' for k in need if not meta.get(k)]
    outs = {o.name: o for o in m.graph.output}
    ins = {i.name: i for i in m.graph.input}
    for o in ["encoder_out", "decoder_init"] + step_outputs(kind, "forecast" if task == "forecasting" else "logits"):
        if o not in outs:
            problems.append(f'no output named "{o}"')
    for v in list(ins.values()) + list(outs.values()):
        want = onnx.TensorProto.INT64 if v.name in ("src_ids", "prev_token") else onnx.TensorProto.FLOAT
        t = v.type.tensor_type
        if t.elem_type != want:
            dtype = onnx.TensorProto.DataType.Name
            problems.append(f'"{v.name}" is {dtype(t.elem_type).lower()}, not {dtype(want).lower()}')
        if t.shape.dim and t.shape.dim[0].HasField("dim_value"):
            problems.append(f'"{v.name}" has a fixed batch size of {t.shape.dim[0].dim_value}: export with dynamic axes')
    for init in m.graph.initializer:
        if init.data_type in (onnx.TensorProto.FLOAT, onnx.TensorProto.DOUBLE, onnx.TensorProto.FLOAT16):
            a = numpy_helper.to_array(init)
            if np.isnan(a).any() or (a.size > 1 and np.isinf(a).any()):
                problems.append(f'the weight "{init.name}" holds NaN or infinite values')
    if problems or task == "forecasting":
        return problems, warnings
    try:
        import onnxruntime as ort
    except ImportError:
        warnings.append("onnxruntime is not installed: no decode was tried")
        return problems, warnings
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    special = json.loads(meta["al.special_tokens"])
    for B in (1, 2):
        S = 4
        feeds = {"src_ids": np.full((B, S), special["eos"], np.int64), "src_mask": np.ones((B, S), np.float32)}
        names = {i.name for i in sess.get_inputs()}
        enc = sess.run(["encoder_out", "decoder_init"], {k: v for k, v in feeds.items() if k in names})
        Sm = enc[0].shape[1]
        feeds.update({"encoder_states": enc[0], "state": enc[1], "prev_token": np.full((B,), special["bos"], np.int64),
                      "step": np.zeros(B, np.float32), "attn_override": np.zeros((B, Sm), np.float32),
                      "override_on": np.zeros(B, np.float32)})
        if kind == "transformer":
            grid = (B, int(meta["al.layers"]), int(meta["al.heads"]))
            feeds.update({"head_gate": np.ones(grid, np.float32), "head_override": np.zeros(grid, np.float32)})
        try:
            res = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, {k: v for k, v in feeds.items() if k in names})))
        except Exception as e:  # onnxruntime's own error, first line
            problems.append(f"one step with a batch of {B} fails: {str(e).splitlines()[0]}")
            continue
        if "attention" in res and kind != "local-p":
            sums = res["attention"].sum(1)
            if np.abs(sums - 1).max() > 1e-3:
                problems.append(f"attention rows sum to {sums.tolist()}, not 1")
        if "cross_attention" in res:
            heads = res["cross_attention"]
            if np.abs(heads.sum(3) - 1).max() > 1e-3:
                problems.append("a cross_attention head's row does not sum to 1")
            if np.abs(heads.mean((1, 2)) - res["attention"]).max() > 1e-4:
                problems.append("attention is not the mean of the cross_attention heads")
    return problems, warnings
