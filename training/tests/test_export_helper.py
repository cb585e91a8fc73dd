"""The export helper on plain functions and on a PyTorch whose torch.onnx.export defaults to the
dynamo exporter (2.9 and later): run under Debian's torch and the pip torch of the local wheels."""
import os
import sys

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")
import onnx  # noqa: E402
from torch import nn  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from attention_lens_export import export_translation  # noqa: E402

SRC = ["<pad>", "<unk>", "<s>", "</s>", "a", "dog", "runs"]
TGT = ["<pad>", "<unk>", "<s>", "</s>", "ein", "hund", "läuft"]


class Parts(nn.Module):
    def __init__(self, H=8):
        super().__init__()
        self.src, self.tgt = nn.Embedding(len(SRC), H), nn.Embedding(len(TGT), H)
        self.cell, self.out = nn.GRUCell(2 * H, H), nn.Linear(H, len(TGT))


def test_plain_functions_export_with_the_torchscript_exporter(tmp_path):
    """encode/step written as plain functions over a module (not its methods) trace: the helper
    finds the module in their closures; the file has the contract's inputs, not dynamo's names."""
    torch.manual_seed(0)
    parts = Parts()

    def encode(src_ids, src_mask):
        states = parts.src(src_ids) * src_mask.unsqueeze(2)
        return states, states.mean(1)

    def step(prev_token, state, encoder_states, src_mask):
        scores = torch.bmm(encoder_states, state.unsqueeze(2)).squeeze(2).masked_fill(src_mask == 0, -1e9)
        weights = torch.softmax(scores, 1)
        context = torch.bmm(weights.unsqueeze(1), encoder_states).squeeze(1)
        h = parts.cell(torch.cat([parts.tgt(prev_token), context], 1), state)
        return {"logits": parts.out(h), "state": h, "attention": weights, "scores": scores}

    path = str(tmp_path / "plain.onnx")
    export_translation(path, encode, step, attention="luong-dot", src_vocab=SRC, tgt_vocab=TGT,
                       special_tokens={"pad": "<pad>", "unk": "<unk>", "bos": "<s>", "eos": "</s>"},
                       src_tokenizer={"type": "word"}, tgt_tokenizer={"type": "word"}, src_lang="en", tgt_lang="de", check=False)
    m = onnx.load(path)
    names = {i.name for i in m.graph.input}
    assert {"src_ids", "src_mask", "encoder_states", "state", "prev_token"} <= names
    # The weights are in the file, not in a side file (external data), and are weights, not constants of the trace.
    assert not any(t.data_location == onnx.TensorProto.EXTERNAL for t in m.graph.initializer)
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".data")]
    assert len(m.graph.initializer) >= 5
