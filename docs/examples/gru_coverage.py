"""Attention with a coverage vector (Tu et al., 2016) in a fixed-width state, for Attention Lens.

Coverage sums the attention each source token has had so far, one float per source token, so it
is as long as the source. The app needs a state of one width for every source (it batches
sentences of different lengths and the export traces one example), so the coverage lives in a
buffer of MAX_SOURCE floats: the encoder makes it, the step reads and updates its first S entries
and leaves the rest at 0 (docs/model-format.md, "A state that grows with the source"). The app
cuts sources at 200 tokens plus </s>, so 256 is enough:

    /usr/bin/python3 docs/examples/gru_coverage.py gru-coverage.onnx
    attention-lens check gru-coverage.onnx

A state of [B, H + S] instead is refused by the export helper and by the app, with the reason.
"""
import json
import sys
from pathlib import Path

import torch
import torch.nn as nn

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "training"))  # or copy the helper here
from attention_lens_export import export_translation  # noqa: E402
from toy import Toy  # noqa: E402

toy = Toy(["<pad>", "<unk>", "<s>", "</s>"], pad=0, unk=1, bos=2, eos=3)
MAX_SOURCE = 256


class CoverageAttention(nn.Module):
    def __init__(self, H=32):
        super().__init__()
        self.src_emb, self.tgt_emb = nn.Embedding(len(toy.src_vocab), H), nn.Embedding(len(toy.tgt_vocab), H)
        self.encoder = nn.GRU(H, H, batch_first=True)
        self.decoder = nn.GRUCell(2 * H, H)
        self.wq, self.wk, self.wc, self.v = nn.Linear(H, H), nn.Linear(H, H), nn.Linear(1, H), nn.Linear(H, 1)
        self.out = nn.Linear(2 * H, len(toy.tgt_vocab))

    def encode(self, src_ids, src_mask):
        states, _ = self.encoder(self.src_emb(src_ids))
        states = states * src_mask.unsqueeze(2)
        h = torch.tanh(states.sum(1) / src_mask.sum(1, keepdim=True))
        coverage = torch.zeros(src_ids.shape[0], MAX_SOURCE)  # one width, whatever the source length
        return states, (h, coverage)

    def step(self, prev_token, state, encoder_states, src_mask, attn_override=None, override_on=None):
        h, buffer = state
        S = encoder_states.shape[1]
        coverage = buffer[:, :S]  # this source's tokens
        feat = self.wq(h).unsqueeze(1) + self.wk(encoder_states) + self.wc(coverage.unsqueeze(2))
        scores = self.v(torch.tanh(feat)).squeeze(2)  # Bahdanau's score with Tu et al.'s coverage term
        weights = torch.softmax(scores.masked_fill(src_mask == 0, -1e9), 1)
        if override_on is not None:  # the app's what-if: its weights instead of ours
            on = override_on.unsqueeze(1)
            weights = on * attn_override + (1 - on) * weights
        context = torch.bmm(weights.unsqueeze(1), encoder_states).squeeze(1)
        h = self.decoder(torch.cat([self.tgt_emb(prev_token), context], 1), h)
        buffer = torch.cat([coverage + weights, buffer[:, S:]], 1)  # back into the fixed-width buffer
        return {"logits": self.out(torch.cat([h, context], 1)), "state": (h, buffer), "attention": weights, "scores": scores}


torch.manual_seed(0)
model = CoverageAttention()
toy.train(model)
code = export_translation(
    sys.argv[1] if len(sys.argv) > 1 else "gru-coverage.onnx", model.encode, model.step,
    attention="bahdanau", src_vocab=toy.src_vocab, tgt_vocab=toy.tgt_vocab,
    special_tokens={"pad": "<pad>", "unk": "<unk>", "bos": "<s>", "eos": "</s>"},
    src_tokenizer={"type": "word"}, tgt_tokenizer={"type": "word"}, src_lang="en", tgt_lang="de", name="gru-coverage")
print(json.dumps({s: toy.greedy(model, s) for s in ("a dog runs", "the woman reads a book")}, ensure_ascii=False))
sys.exit(code)
