"""A bidirectional GRU encoder that ignores padding, for Attention Lens.

A plain `nn.GRU(bidirectional=True)` over a padded batch runs its backward direction from the
last position, padding first, so a short sentence's encoder states depend on the longer
sentences it is batched with (docs/model-format.md, "Bidirectional encoders and padding"). Packing
the batch runs each direction over the real tokens only, and exports to ONNX:

    /usr/bin/python3 docs/examples/bigru_packed.py bigru-packed.onnx
    attention-lens check bigru-packed.onnx      # no note about batches
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


class BiGRU(nn.Module):
    def __init__(self, H=32):
        super().__init__()
        self.H = H
        self.src_emb, self.tgt_emb = nn.Embedding(len(toy.src_vocab), H), nn.Embedding(len(toy.tgt_vocab), H)
        self.encoder = nn.GRU(H, H // 2, batch_first=True, bidirectional=True)
        self.decoder = nn.GRUCell(2 * H, H)
        self.wq, self.wk, self.v = nn.Linear(H, H), nn.Linear(H, H), nn.Linear(H, 1)
        self.out = nn.Linear(2 * H, len(toy.tgt_vocab))

    def encode(self, src_ids, src_mask):
        lengths = src_mask.sum(1).long()
        packed = nn.utils.rnn.pack_padded_sequence(self.src_emb(src_ids), lengths, batch_first=True, enforce_sorted=False)
        # An explicit first state: without it the trace fixes the batch size of the example.
        h0 = torch.zeros(2, src_ids.shape[0], self.H // 2)
        states, _ = self.encoder(packed, h0)
        states, _ = nn.utils.rnn.pad_packed_sequence(states, batch_first=True, total_length=src_ids.shape[1])
        mean = states.sum(1) / src_mask.sum(1, keepdim=True)
        return states, torch.tanh(mean)

    def step(self, prev_token, state, encoder_states, src_mask, attn_override=None, override_on=None):
        scores = self.v(torch.tanh(self.wq(state).unsqueeze(1) + self.wk(encoder_states))).squeeze(2)  # Bahdanau
        weights = torch.softmax(scores.masked_fill(src_mask == 0, -1e9), 1)
        if override_on is not None:  # the app's what-if: its weights instead of ours
            on = override_on.unsqueeze(1)
            weights = on * attn_override + (1 - on) * weights
        context = torch.bmm(weights.unsqueeze(1), encoder_states).squeeze(1)
        state = self.decoder(torch.cat([self.tgt_emb(prev_token), context], 1), state)
        return {"logits": self.out(torch.cat([state, context], 1)), "state": state, "attention": weights, "scores": scores}


torch.manual_seed(0)
model = BiGRU()
toy.train(model)
code = export_translation(
    sys.argv[1] if len(sys.argv) > 1 else "bigru-packed.onnx", model.encode, model.step,
    attention="bahdanau", src_vocab=toy.src_vocab, tgt_vocab=toy.tgt_vocab,
    special_tokens={"pad": "<pad>", "unk": "<unk>", "bos": "<s>", "eos": "</s>"},
    src_tokenizer={"type": "word"}, tgt_tokenizer={"type": "word"}, src_lang="en", tgt_lang="de", name="bigru-packed")
print(json.dumps({s: toy.greedy(model, s) for s in ("a dog runs", "the woman reads a book")}, ensure_ascii=False))
sys.exit(code)
