"""A vocabulary without a <pad> piece, as SentencePiece makes by default, for Attention Lens.

`spm_train` reserves <unk>, <s> and </s> (ids 0, 1, 2) and no padding piece unless asked
(`--pad_id`). Attention Lens still needs a pad id: it fills the shorter sentences of a batch with
it and masks them with `src_mask`, so any id the model already has will do; it is never written
out. Here the batch is padded with <unk>'s id, in training as in the app
(docs/model-format.md, "Vocabularies without a <pad> piece"):

    /usr/bin/python3 docs/examples/spm_no_pad.py spm-no-pad.onnx
    attention-lens check spm-no-pad.onnx
"""
import json
import sys
from pathlib import Path

import torch
import torch.nn as nn

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "training"))  # or copy the helper here
from attention_lens_export import export_translation  # noqa: E402
from toy import Toy  # noqa: E402

# SentencePiece's layout: <unk> 0, <s> 1, </s> 2, then the pieces; padding reuses <unk>'s id.
toy = Toy(["<unk>", "<s>", "</s>"], pad=0, unk=0, bos=1, eos=2)


class LuongGeneral(nn.Module):
    def __init__(self, H=32):
        super().__init__()
        self.src_emb, self.tgt_emb = nn.Embedding(len(toy.src_vocab), H), nn.Embedding(len(toy.tgt_vocab), H)
        self.encoder = nn.GRU(H, H, batch_first=True)
        self.decoder = nn.GRUCell(H, H)
        self.w, self.combine, self.out = nn.Linear(H, H, bias=False), nn.Linear(2 * H, H), nn.Linear(H, len(toy.tgt_vocab))

    def encode(self, src_ids, src_mask):
        states, _ = self.encoder(self.src_emb(src_ids))  # forward only: padding comes after the real tokens
        states = states * src_mask.unsqueeze(2)
        return states, torch.tanh(states.sum(1) / src_mask.sum(1, keepdim=True))

    def step(self, prev_token, state, encoder_states, src_mask, attn_override=None, override_on=None):
        state = self.decoder(self.tgt_emb(prev_token), state)
        scores = torch.bmm(self.w(encoder_states), state.unsqueeze(2)).squeeze(2)  # Luong general: s_t · W h_j
        weights = torch.softmax(scores.masked_fill(src_mask == 0, -1e9), 1)
        if override_on is not None:
            on = override_on.unsqueeze(1)
            weights = on * attn_override + (1 - on) * weights
        context = torch.bmm(weights.unsqueeze(1), encoder_states).squeeze(1)
        logits = self.out(torch.tanh(self.combine(torch.cat([context, state], 1))))
        return {"logits": logits, "state": state, "attention": weights, "scores": scores}


torch.manual_seed(0)
model = LuongGeneral()
toy.train(model)
code = export_translation(
    sys.argv[1] if len(sys.argv) > 1 else "spm-no-pad.onnx", model.encode, model.step,
    attention="luong-general", src_vocab=toy.src_vocab, tgt_vocab=toy.tgt_vocab,
    special_tokens={"pad": "<unk>", "unk": "<unk>", "bos": "<s>", "eos": "</s>"},
    src_tokenizer={"type": "word"}, tgt_tokenizer={"type": "word"}, src_lang="en", tgt_lang="de", name="spm-no-pad")
print(json.dumps({s: toy.greedy(model, s) for s in ("a dog runs", "the woman reads a book")}, ensure_ascii=False))
sys.exit(code)
