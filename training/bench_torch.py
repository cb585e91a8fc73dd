"""PyTorch eager side of `npm run bench`: the same weights (read back from the ONNX file's
initializers, which keep their PyTorch names) and the same sentences as the onnxruntime side.

It runs as a server so the benchmark can interleave the two sides sentence by sentence and batch
by batch: one JSON command per line on stdin, one JSON answer per line on stdout.

    {"cmd": "load", "path": "MODEL.onnx"}                 -> {"torch": version}
    {"cmd": "greedy", "text": "...", "keys_once": false}  -> {"cpu_ms", "wall_ms", "steps"}
    {"cmd": "beam", "text": "...", "k": 5}                -> {"cpu_ms", "wall_ms", "tokens"}
    {"cmd": "batch", "texts": ["...", ...]}               -> {"cpu_ms", "wall_ms"}

Times are measured here, around the decode alone (tokenising included, as on the ONNX side).
`greedy` is `models.greedy`, the decoder the model cards are measured with; it recomputes the
attention keys at every step, as the exported step does. `keys_once` is the same loop with the
keys computed once per sentence (`Seq2Seq.keys`), the stronger baseline.

A file whose `al.attention` is `transformer` is rebuilt with `transformer.load_from_onnx` and
decoded as train.py's `translate()` decodes it: `transformer.greedy` (models.greedy with at most
`al.max_target` steps) and `transformer.beam_search`; its `keys_once` computes each decoder
layer's cross-attention keys and values once per sentence instead of at every step.
"""
import json
import os
import sys
import time

import onnx
import torch
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attention_lens import data  # noqa: E402
from attention_lens import transformer  # noqa: E402
from attention_lens.models import FLOAT16_SUFFIX, Seq2Seq, beam_search, greedy, gru_weights_from_onnx  # noqa: E402


def load(path):
    m = onnx.load(path)
    meta = {p.key: p.value for p in m.metadata_props}
    if meta.get("al.attention") == transformer.KIND:
        return transformer.load_from_onnx(path)[0], vocab_of(meta)
    card = json.loads(meta["al.model_card"])
    sizes = card["sizes"]
    model = Seq2Seq(meta["al.attention"], sizes["src_vocab"], sizes["tgt_vocab"], sizes["emb"], sizes["enc_hidden"],
                    sizes["dec_hidden"], int(meta.get("al.window_d", "4") or 4), float(meta.get("al.local_m_ratio", "1.0")),
                    attend_eos=card["training"].get("attend_eos", True))
    # A weight stored as float16 (export.store_float16) is `<name>.float16`.
    weights = {i.name[len("model."):].removesuffix(FLOAT16_SUFFIX): torch.from_numpy(numpy_helper.to_array(i).copy()).float()
               for i in m.graph.initializer if i.name.startswith("model.")}
    if "cell.gru_W" in weights:  # decoder cell exported as one ONNX GRU node
        weights.update(gru_weights_from_onnx("cell.", weights.pop("cell.gru_W"), weights.pop("cell.gru_R"), weights.pop("cell.gru_B")))
    model.load_state_dict(weights)
    model.eval()
    return model, vocab_of(meta)


def vocab_of(meta):
    # The vocabulary lookup is built once per model, not once per sentence.
    spec = json.loads(meta["al.src_tokenizer"])
    index = {w: i for i, w in enumerate(json.loads(meta["al.src_vocab"]))}
    return spec, index


def is_transformer(model):
    return getattr(model, "kind", None) == transformer.KIND


def encode(vocab, text):
    spec, index = vocab
    return data.encode(text, spec, index, 200)


class _Once(torch.nn.Module):
    """A projection that returns its last result again when called on the same tensor: the
    encoder states, which every step of one sentence passes unchanged."""

    def __init__(self, proj):
        super().__init__()
        self.proj, self.seen, self.out = proj, None, None

    def forward(self, x):
        if x is not self.seen:
            self.seen, self.out = x, self.proj(x)
        return self.out


@torch.no_grad()
def transformer_keys_once(model, src, mask, max_len, bos=2, eos=3):
    """transformer.greedy with each layer's cross-attention keys and values (W_k h_j, W_v h_j)
    computed once per sentence, as the app's graph surgery does; the same steps and captures."""
    saved = [(layer.cross.k, layer.cross.v) for layer in model.dec]
    for layer in model.dec:
        layer.cross.k, layer.cross.v = _Once(layer.cross.k), _Once(layer.cross.v)
    try:
        return transformer.greedy(model, src, mask, max_len, bos, eos)
    finally:
        for layer, (k, v) in zip(model.dec, saved):
            layer.cross.k, layer.cross.v = k, v


@torch.no_grad()
def greedy_keys_once(model, src, mask, max_len, bos=2, eos=3):
    """models.greedy with the keys computed once per sentence; the same steps and captures."""
    if is_transformer(model):
        return transformer_keys_once(model, src, mask, max_len, bos, eos)
    return greedy(model, src, mask, max_len, bos, eos, keys_once=True)


def timed(fn):
    c0, w0 = time.process_time(), time.perf_counter()
    out = fn()
    return out, {"cpu_ms": (time.process_time() - c0) * 1000, "wall_ms": (time.perf_counter() - w0) * 1000}


def batch_tensors(vocab, texts):
    enc = [encode(vocab, s) for s in texts]
    S = max(len(e) for e in enc)
    src = torch.zeros(len(enc), S, dtype=torch.long)
    for b, e in enumerate(enc):
        src[b, :len(e)] = torch.tensor(e)
    return src, (src != 0).float()


def main():
    torch.set_num_threads(1)
    model = vocab = None
    for line in sys.stdin:
        cmd = json.loads(line)
        c = cmd["cmd"]
        if c == "load":
            model, vocab = load(cmd["path"])
            out = {"torch": torch.__version__}
        elif c == "greedy":
            decode = greedy_keys_once if cmd.get("keys_once") else (transformer.greedy if is_transformer(model) else greedy)

            def run():
                ids = encode(vocab, cmd["text"])
                return decode(model, torch.tensor([ids]), torch.ones(1, len(ids)), max_len=2 * len(ids) + 10)

            (toks, steps), out = timed(run)
            out["steps"] = len(steps)
        elif c == "beam":
            def run():
                ids = encode(vocab, cmd["text"])
                search = transformer.beam_search if is_transformer(model) else beam_search
                return search(model, torch.tensor([ids]), torch.ones(1, len(ids)), K=cmd.get("k", 5))

            toks, out = timed(run)
            out["tokens"] = len(toks[0])
        elif c == "batch":
            def run():
                src, mask = batch_tensors(vocab, cmd["texts"])
                return (transformer.greedy if is_transformer(model) else greedy)(model, src, mask, max_len=2 * src.shape[1] + 10)

            _, out = timed(run)
        elif c == "quit":
            break
        else:
            out = {"error": f"unknown command {c}"}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    with torch.no_grad():
        main()
