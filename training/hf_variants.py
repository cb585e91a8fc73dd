"""Precision variants of Hugging Face seq2seq ONNX folders, and onnxruntime-python's own decoding of
them: the helpers behind training/hf_test_models.py's --variants and --large (issue 39).

- `quantize_q8`: `_quantized` files as transformers.js's conversion script (scripts/quantize.py,
  mode q8) writes them: onnxruntime's dynamic quantization (IntegerOps), per-tensor weight scales
  (per_channel=False, reduce_range=False), every op type in onnxruntime's IntegerOpsRegistry (MatMul
  with constant weights only, Gather: the embeddings, ...), into If subgraphs (EnableSubgraph), weights
  QInt8 (transformers.js takes QUInt8 only for graphs with Conv or fused attention ops, which these
  have not), activations QUInt8.
- `quantize_q4`: `_q4` files, MatMulNBits with 4-bit weights in blocks of 32 (made for the
  contribution tests: test/fixtures/contributions/marian-q4).
- `to_fp16`: `_fp16` files as the same script writes them: onnxruntime.transformers.float16 (the
  converter transformers.js imports from onnxconverter_common) with keep_io_types=True and the
  default op block list, so inputs and outputs stay float32 and everything inside, Softmax included,
  is float16; nodes sorted again afterwards.
- `add_cross_attention_taps`: the cross-attention probabilities as extra graph outputs, found from the
  graph alone (not the app's TypeScript): a Softmax whose scores come from a MatMul whose key side
  depends on the encoder (encoder_hidden_states or past_key_values.*.encoder.*) and not on the
  decoder's input_ids. Cast to float32 as they leave the graph.
- `OrtSeq2Seq.greedy`: greedy decoding with the KV cache (merged decoder: use_cache_branch; Optimum's
  pair: decoder_model then decoder_with_past_model), with the logits processors transformers'
  generate() applies for greedy search: bad_words_ids, no_repeat_ngram_size, forced_bos_token_id,
  forced_eos_token_id (at max_length - 1), plain argmax otherwise.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper

TWO_GB = 2**31 - 1


# --------------------------------------------------------------------------------------------
# Files


def save(model: onnx.ModelProto, dest: Path, external: bool | None = None) -> None:
    """One file, or weights in `<name>_data` beside it (Optimum's naming) when asked or when the
    model would not fit protobuf's 2 GB."""
    if external is None:
        try:
            external = _has_external(model) or model.ByteSize() > TWO_GB - 64 * 2**20
        except Exception:  # protobuf cannot even measure a message over 2 GB
            external = True
    dest.parent.mkdir(parents=True, exist_ok=True)
    if external:
        data = dest.with_name(dest.name + "_data")
        if data.exists():
            data.unlink()
        onnx.save_model(model, str(dest), save_as_external_data=True, all_tensors_to_one_file=True, location=data.name,
                        size_threshold=1024, convert_attribute=False)
        data.chmod(0o644)  # onnx creates it 0600
        onnx.checker.check_model(str(dest))
    else:
        onnx.save_model(model, str(dest))
        onnx.checker.check_model(model)


def _has_external(model: onnx.ModelProto) -> bool:
    return any(t.data_location == TensorProto.EXTERNAL for t in model.graph.initializer)


def file_bytes(path: Path) -> int:
    """An ONNX file's size with its external data files."""
    total = path.stat().st_size
    for p in path.parent.iterdir():
        if p.name.startswith(path.name) and p.name != path.name:
            total += p.stat().st_size
    return total


# --------------------------------------------------------------------------------------------
# Variants


def quantize_q8(src: Path, dest: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.quantization.registry import IntegerOpsRegistry

    ops = _op_types(onnx.load(str(src), load_external_data=False).graph)
    weight = QuantType.QUInt8 if ops & {"Conv", "GroupQueryAttention", "MultiHeadAttention"} else QuantType.QInt8
    dest.parent.mkdir(parents=True, exist_ok=True)
    quantize_dynamic(str(src), str(dest), op_types_to_quantize=sorted(IntegerOpsRegistry), per_channel=False, reduce_range=False,
                     weight_type=weight, use_external_data_format=False, extra_options={"EnableSubgraph": True, "MatMulConstBOnly": True})
    onnx.checker.check_model(str(dest))


def quantize_q4(src: Path, dest: Path) -> None:
    """`_q4` files as transformers.js's q4 mode writes them: onnxruntime's MatMulNBitsQuantizer, 4-bit
    weights in blocks of 32 along K, symmetric (no zero points stored), activations float32."""
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

    q = MatMulNBitsQuantizer(onnx.load(str(src)), block_size=32, is_symmetric=True)
    q.process()
    dest.parent.mkdir(parents=True, exist_ok=True)
    q.model.save_model_to_file(str(dest), False)


def _op_types(graph: onnx.GraphProto) -> set[str]:
    ops = set()
    for n in graph.node:
        ops.add(n.op_type)
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                ops |= _op_types(a.g)
    return ops


def to_fp16(src: Path, dest: Path) -> None:
    from onnxruntime.transformers.float16 import DEFAULT_OP_BLOCK_LIST, convert_float_to_float16

    big = file_bytes(src) >= TWO_GB  # ByteSize() itself fails on a proto over 2 GB
    model = onnx.load(str(src))
    model = convert_float_to_float16(model, keep_io_types=True, disable_shape_infer=big, op_block_list=list(DEFAULT_OP_BLOCK_LIST))
    toposort(model.graph)
    save(model, dest)


def toposort(graph: onnx.GraphProto) -> None:
    """Nodes in dependency order (the converter appends its output Casts where it likes); subgraphs too."""
    for n in graph.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                toposort(a.g)
    produced = {o: i for i, n in enumerate(graph.node) for o in n.output}
    order, state = [], {}

    def needs(i: int) -> list[int]:
        names = list(graph.node[i].input)
        for a in graph.node[i].attribute:  # outer names a subgraph reads
            if a.type == onnx.AttributeProto.GRAPH:
                names += sorted(_outer_reads(a.g))
        return [produced[x] for x in names if x in produced]

    for start in range(len(graph.node)):
        stack = [(start, False)]
        while stack:
            i, done = stack.pop()
            if done:
                state[i] = 2
                order.append(i)
                continue
            if state.get(i):
                continue
            state[i] = 1
            stack.append((i, True))
            for j in needs(i):
                if not state.get(j):
                    stack.append((j, False))
    nodes = [graph.node[i] for i in order]
    del graph.node[:]
    graph.node.extend(nodes)


def _outer_reads(g: onnx.GraphProto) -> set[str]:
    local = {i.name for i in g.input} | {t.name for t in g.initializer} | {o for n in g.node for o in n.output}
    reads = set()
    for n in g.node:
        reads |= {x for x in n.input if x and x not in local}
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                reads |= {x for x in _outer_reads(a.g) if x not in local}
    return reads


# --------------------------------------------------------------------------------------------
# Merging Optimum's two decoders into one (memory-careful: weights read once, from disk)


def _tensor_key(t: onnx.TensorProto, base: Path) -> tuple:
    if t.data_location == TensorProto.EXTERNAL:
        info = {e.key: e.value for e in t.external_data}
        with open(base / info["location"], "rb") as f:
            f.seek(int(info.get("offset", 0)))
            data = f.read(int(info["length"])) if "length" in info else f.read()
        return (t.data_type, tuple(t.dims), hashlib.sha1(data).hexdigest())
    return (t.data_type, tuple(t.dims), hashlib.sha1(t.raw_data if t.raw_data else t.SerializeToString()).hexdigest())


def _materialize(t: onnx.TensorProto, base: Path, name: str) -> onnx.TensorProto:
    out = onnx.TensorProto()
    out.CopyFrom(t)
    out.name = name
    if t.data_location == TensorProto.EXTERNAL:
        info = {e.key: e.value for e in t.external_data}
        with open(base / info["location"], "rb") as f:
            f.seek(int(info.get("offset", 0)))
            out.raw_data = f.read(int(info["length"])) if "length" in info else f.read()
        del out.external_data[:]
        out.data_location = TensorProto.DEFAULT
    return out


def merge_decoders(no_past: Path, with_past: Path, dest: Path, external: bool | None = None) -> None:
    """Both decoders in one file behind an If on `use_cache_branch`, as Optimum's merge_decoders
    writes it: the inputs are the union, the with-past branch passes the encoder half of the past
    through as its present, and the weights both branches read sit once in the outer graph (matched
    by content; each read from disk once)."""
    a = onnx.load(str(no_past), load_external_data=False)
    b = onnx.load(str(with_past), load_external_data=False)
    outer: dict[tuple, onnx.TensorProto] = {}

    def branch(m: onnx.ModelProto, base: Path, tag: str, outputs: list[str]) -> onnx.GraphProto:
        g = m.graph
        inputs = {i.name for i in g.input}
        rename = {}
        for init in g.initializer:
            key = _tensor_key(init, base)
            if key not in outer:
                outer[key] = _materialize(init, base, f"w{len(outer)}")
            rename[init.name] = outer[key].name
        del g.initializer[:]
        nodes = []
        for n in g.node:
            nn_ = onnx.NodeProto()
            nn_.CopyFrom(n)
            for at in nn_.attribute:  # a Constant's value can sit in an external file too (TorchScript, > 2 GB)
                if at.type == onnx.AttributeProto.TENSOR and at.t.data_location == TensorProto.EXTERNAL:
                    at.t.CopyFrom(_materialize(at.t, base, at.t.name))
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
            if name not in produced:  # the encoder half of the past, passed through
                src = name.replace("present", "past_key_values")
                nodes.append(helper.make_node("Identity", [src], [f"{tag}/{name}"], name=f"{tag}/pass_{name}"))
            outs.append(helper.make_tensor_value_info(f"{tag}/{name}", TensorProto.FLOAT, None))
        return helper.make_graph(nodes, f"{tag}_branch", [], outs)

    outputs = [o.name for o in a.graph.output]
    else_g = branch(a, no_past.parent, "no_past", outputs)
    then_g = branch(b, with_past.parent, "with_past", outputs)
    flag = helper.make_tensor_value_info("use_cache_branch", TensorProto.BOOL, [1])
    inputs = list(a.graph.input) + [i for i in b.graph.input if i.name.startswith("past_key_values")] + [flag]
    node = helper.make_node("If", ["use_cache_branch"], outputs, name="optimum::if", then_branch=then_g, else_branch=else_g)
    graph = helper.make_graph([node], "merged_decoder", inputs, list(a.graph.output), list(outer.values()))
    model = helper.make_model(graph, opset_imports=a.opset_import, producer_name="attention-lens hf_test_models")
    model.ir_version = a.ir_version
    save(model, dest, external)


# --------------------------------------------------------------------------------------------
# Cross-attention taps


def _ancestry(graph: onnx.GraphProto, outer: onnx.GraphProto | None = None) -> tuple[dict[str, onnx.NodeProto], dict[str, frozenset]]:
    """For every tensor produced in `graph`: the graph-level names (inputs, outer-scope names) whose
    values it is computed from, weights, constants and shapes left out. For an If branch, `outer` is the
    graph holding the If: the quantizer hoists work on the inputs (DynamicQuantizeLinear of
    encoder_hidden_states) and the weights there, and the walk goes on through it."""
    producer = {o: n for n in outer.node for o in n.output if n.op_type != "If"} if outer is not None else {}
    producer.update({o: n for n in graph.node for o in n.output})
    weights = {t.name for t in graph.initializer} | ({t.name for t in outer.initializer} if outer is not None else set())
    memo: dict[str, frozenset] = {}

    def of(name: str) -> frozenset:
        if name in memo:
            return memo[name]
        stack = [name]
        while stack:
            x = stack[-1]
            if x in memo:
                stack.pop()
                continue
            n = producer.get(x)
            if n is None:
                memo[x] = frozenset() if (x in weights or not x) else frozenset([x])
                stack.pop()
                continue
            # Shape-only edges carry no data (a key's Reshape takes the batch size from the decoder's
            # hidden states): Shape and Size outputs depend on nothing here.
            srcs = [i for i in n.input if i] if n.op_type not in ("Shape", "Size") else []
            for a in n.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    srcs += sorted(_outer_reads(a.g))
            todo = [s for s in srcs if s not in memo]
            if todo:
                stack += todo
                continue
            acc = frozenset()
            for s in srcs:
                acc |= memo[s]
            for o in n.output:
                memo[o] = acc
            stack.pop()
        return memo[name]

    return producer, {k: of(k) for k in producer}


def cross_attention_softmaxes(graph: onnx.GraphProto, outer: onnx.GraphProto | None = None) -> list[str]:
    """The outputs of the cross-attention Softmax nodes of one decoder graph (or If branch), in layer
    order: the score MatMul's key operand is computed from the encoder (encoder_hidden_states or
    past_key_values.*.encoder.*) and not from input_ids. Layer order: by the past key's layer number
    where the key comes from the past, else by position in the (topologically sorted) graph."""
    producer, anc = _ancestry(graph, outer)
    found = []
    for pos, n in enumerate(graph.node):
        if n.op_type != "Softmax":
            continue
        mm = _nearest_matmul(n.input[0], producer)
        if mm is None:
            continue
        key = anc.get(mm.input[1], frozenset())
        enc = {x for x in key if x == "encoder_hidden_states" or (x.startswith("past_key_values.") and ".encoder." in x)}
        if enc and "input_ids" not in key:
            layers = {int(x.split(".")[1]) for x in enc if x.startswith("past_key_values.")}
            found.append((min(layers) if len(layers) == 1 else -1, pos, n.output[0]))
    if any(lay >= 0 for lay, _, _ in found):
        assert all(lay >= 0 for lay, _, _ in found), found
        found.sort()
    else:
        found.sort(key=lambda f: f[1])
    return [name for _, _, name in found]


def _nearest_matmul(name: str, producer: dict[str, onnx.NodeProto]) -> onnx.NodeProto | None:
    """The MatMul the scores come from, walking back breadth-first through the mask, scale and cast ops."""
    seen, queue_ = set(), [name]
    while queue_:
        x = queue_.pop(0)
        n = producer.get(x)
        if n is None or x in seen:
            continue
        seen.add(x)
        if n.op_type in ("MatMul", "MatMulInteger", "QLinearMatMul"):
            return n
        queue_ += [i for i in n.input if i]
    return None


def add_cross_attention_taps(model: onnx.ModelProto, layers: int) -> list[str]:
    """Adds `tap.cross_attention.{i}` outputs (float32 [B, H, T, S]) to a decoder: plain (Optimum's
    decoder_model / decoder_with_past_model) or merged (an If whose branches each get the taps).
    Returns the names, in layer order."""
    g = model.graph
    names = [f"tap.cross_attention.{i}" for i in range(layers)]
    ifs = [n for n in g.node if n.op_type == "If"]
    if ifs:
        (node,) = ifs
        for a in node.attribute:
            sub = a.g
            probs = cross_attention_softmaxes(sub, g)
            assert len(probs) == layers, (a.name, len(probs), layers)
            for i, p in enumerate(probs):
                out = f"{sub.name}/tap.cross_attention.{i}"
                sub.node.append(helper.make_node("Cast", [p], [out], to=TensorProto.FLOAT, name=f"{out}/cast"))
                sub.output.append(helper.make_tensor_value_info(out, TensorProto.FLOAT, None))
        node.output.extend(names)
    else:
        probs = cross_attention_softmaxes(g)
        assert len(probs) == layers, (len(probs), layers)
        for name, p in zip(names, probs):
            g.node.append(helper.make_node("Cast", [p], [name], to=TensorProto.FLOAT, name=f"{name}/cast"))
    for name in names:
        g.output.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, None))
    return names


# --------------------------------------------------------------------------------------------
# onnxruntime-python's greedy decoding


_NP = {"tensor(float)": np.float32, "tensor(float16)": np.float16, "tensor(int64)": np.int64, "tensor(bool)": np.bool_}


class OrtSeq2Seq:
    """An encoder and a decoder (merged, or Optimum's pair) as onnxruntime sessions; `taps` adds the
    cross-attention outputs to the decoder (in memory; the files are not changed)."""

    def __init__(self, encoder: Path, decoder: Path | None = None, decoder_with_past: Path | None = None, merged: Path | None = None,
                 layers: int = 0, taps: bool = False, threads: int = 1):
        import onnxruntime as ort

        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        self.layers = layers
        self.enc = ort.InferenceSession(str(encoder), so, providers=["CPUExecutionProvider"])
        self.taps: list[str] = []

        def session(path: Path):
            if not taps:
                return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
            m = onnx.load(str(path))
            self.taps = add_cross_attention_taps(m, layers)
            return ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])

        self.merged = merged is not None
        if self.merged:
            self.dec = session(merged)
            self.dec_past = self.dec
        else:
            self.dec = session(decoder)
            self.dec_past = session(decoder_with_past)
        self.in_types = {i.name: i.type for i in self.dec_past.get_inputs()}
        self.in_types.update({i.name: i.type for i in self.dec.get_inputs()})
        past = [i for i in self.dec_past.get_inputs() if i.name.startswith("past_key_values.")]
        self.past_names = [i.name for i in past]
        self.past_shapes = {i.name: i.shape for i in past}

    def greedy(self, ids: list[int], start: int, eos: int, max_new_tokens: int, forced_bos: int | None = None,
               forced_eos: int | None = None, no_repeat_ngram_size: int = 0, bad_ids: tuple[int, ...] = ()) -> tuple[list[int], np.ndarray | None]:
        """generate(num_beams=1, do_sample=False)'s ids (start token left out), and the tapped cross-attention
        of every step as float32 [T, L, H, S] (None without taps)."""
        x = np.array([ids], dtype=np.int64)
        mask = np.ones_like(x)
        enc = self.enc.run(None, {"input_ids": x, "attention_mask": mask})[0]
        seq = [start]
        past: dict[str, np.ndarray] = {}
        att = []
        max_length = 1 + max_new_tokens
        while len(seq) < max_length:
            first = not past
            feeds = {"input_ids": np.array([[seq[-1]]], dtype=np.int64), "encoder_attention_mask": mask}
            sess = self.dec if first else self.dec_past
            names = {i.name for i in sess.get_inputs()}
            if "encoder_hidden_states" in names:
                feeds["encoder_hidden_states"] = enc.astype(_NP[self.in_types["encoder_hidden_states"]])
            if self.merged:
                feeds["use_cache_branch"] = np.array([not first])
                for n in self.past_names:
                    if first:
                        shape = [1 if isinstance(d, str) and "batch" in d else d for d in self.past_shapes[n]]
                        shape = [d if isinstance(d, int) else 0 for d in shape]
                        feeds[n] = np.zeros(shape, dtype=_NP[self.in_types[n]])
                    else:
                        feeds[n] = past[n]
            elif not first:
                feeds.update({n: past[n] for n in self.past_names})
            outs = sess.run(None, feeds)
            by = {o.name: v for o, v in zip(sess.get_outputs(), outs)}
            for n in self.past_names:
                present = n.replace("past_key_values", "present")
                if present in by:
                    past[n] = by[present]
            if self.taps:
                att.append(np.stack([by[t][0, :, -1, :] for t in self.taps]).astype(np.float32))  # [L, H, S]
            scores = by["logits"][0, -1].astype(np.float32).copy()
            for b in bad_ids:
                scores[b] = -np.inf
            if no_repeat_ngram_size and len(seq) + 1 >= no_repeat_ngram_size:
                n = no_repeat_ngram_size
                prefix = tuple(seq[len(seq) - n + 1:]) if n > 1 else ()
                for i in range(len(seq) - n + 1):
                    if tuple(seq[i:i + n - 1]) == prefix:
                        scores[seq[i + n - 1]] = -np.inf
            if forced_bos is not None and len(seq) == 1:
                scores[:] = -np.inf
                scores[forced_bos] = 0
            if forced_eos is not None and len(seq) == max_length - 1:
                scores[:] = -np.inf
                scores[forced_eos] = 0
            tok = int(np.argmax(scores))
            seq.append(tok)
            if tok == eos:
                break
        return seq[1:], (np.stack(att) if att else None)


def threads_env(n: int) -> None:
    for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(k, str(n))
