"""A complete model for Attention Lens: a 2-layer LSTM encoder-decoder with Luong's dot attention,
trained for a few seconds on eight English→German pairs, exported with the helper
training/attention_lens_export.py (copy that file next to this one, or run this in the repository):

    /usr/bin/python3 docs/examples/lstm_luong_dot.py lstm-luong-dot.onnx
    attention-lens check lstm-luong-dot.onnx
"""
import json
import sys
from pathlib import Path

import torch
import torch.nn as nn

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "training"))  # or copy the helper here
from attention_lens_export import export_translation  # noqa: E402

PAIRS = [("a dog runs", "ein hund läuft"), ("a cat sleeps", "eine katze schläft"), ("the dog sleeps", "der hund schläft"),
         ("the cat runs", "die katze läuft"), ("a man reads", "ein mann liest"), ("the woman reads a book", "die frau liest ein buch"),
         ("a man runs", "ein mann läuft"), ("the woman sleeps", "die frau schläft")]
SPECIAL = ["<pad>", "<unk>", "<s>", "</s>"]
PAD, UNK, BOS, EOS = range(4)
src_vocab = SPECIAL + sorted({w for s, _ in PAIRS for w in s.split()})
tgt_vocab = SPECIAL + sorted({w for _, t in PAIRS for w in t.split()})


class Seq2Seq(nn.Module):
    def __init__(self, H=64, layers=2):
        super().__init__()
        self.layers = layers
        self.src_emb, self.tgt_emb = nn.Embedding(len(src_vocab), H), nn.Embedding(len(tgt_vocab), H)
        self.encoder = nn.LSTM(H, H, layers, batch_first=True)
        self.decoder = nn.LSTM(H, H, layers, batch_first=True)
        self.init, self.combine, self.out = nn.Linear(H, H), nn.Linear(2 * H, H), nn.Linear(H, len(tgt_vocab))

    def encode(self, src_ids, src_mask):
        """encoder_out [B, S, H] and the decoder's first state (h, c), each [layers, B, H]."""
        m = src_mask.unsqueeze(2)
        states, _ = self.encoder(self.src_emb(src_ids))
        mean = (states * m).sum(1) / m.sum(1)  # over real tokens only: padding changes nothing
        h = torch.tanh(self.init(mean)).unsqueeze(0).repeat(self.layers, 1, 1)
        return states * m, (h, torch.zeros_like(h))

    def step(self, prev_token, state, encoder_states, src_mask, attn_override=None, override_on=None):
        o, state = self.decoder(self.tgt_emb(prev_token).unsqueeze(1), state)
        s = o.squeeze(1)
        scores = torch.bmm(encoder_states, s.unsqueeze(2)).squeeze(2)  # Luong dot: e_tj = s_t · h_j
        weights = torch.softmax(scores.masked_fill(src_mask == 0, -1e9), 1)
        if override_on is not None:  # the app's what-if: its weights instead of ours
            on = override_on.unsqueeze(1)
            weights = on * attn_override + (1 - on) * weights
        context = torch.bmm(weights.unsqueeze(1), encoder_states).squeeze(1)
        logits = self.out(torch.tanh(self.combine(torch.cat([context, s], 1))))
        return {"logits": logits, "state": state, "attention": weights, "scores": scores}


def ids(text, vocab, eos=True):
    return [vocab.index(w) if w in vocab else UNK for w in text.split()] + ([EOS] if eos else [])


def padded(rows):
    n = max(map(len, rows))
    return torch.tensor([r + [PAD] * (n - len(r)) for r in rows])


def greedy(model, text):
    """What the app does with the file: encode once, then step until </s> or 2·S + 10 steps."""
    src = torch.tensor([ids(text, src_vocab)])
    enc, state = model.encode(src, torch.ones(src.shape))
    prev, out = torch.tensor([BOS]), []
    for _ in range(2 * src.shape[1] + 10):
        o = model.step(prev, state, enc, torch.ones(src.shape))
        state, prev = o["state"], o["logits"].argmax(1)
        if prev.item() == EOS:
            break
        out.append(tgt_vocab[prev.item()])
    return " ".join(out)


torch.manual_seed(0)
model = Seq2Seq()
src = padded([ids(s, src_vocab) for s, _ in PAIRS])
mask = (src != PAD).float()
tgt_in = padded([[BOS] + ids(t, tgt_vocab, eos=False) for _, t in PAIRS])
tgt_out = padded([ids(t, tgt_vocab) for _, t in PAIRS])
opt = torch.optim.Adam(model.parameters(), 1e-2)
for _ in range(150):  # teacher forcing through the very `step` that is exported
    enc, state = model.encode(src, mask)
    loss = 0
    for t in range(tgt_in.shape[1]):
        o = model.step(tgt_in[:, t], state, enc, mask)
        state = o["state"]
        loss = loss + nn.functional.cross_entropy(o["logits"], tgt_out[:, t], ignore_index=PAD)
    opt.zero_grad()
    loss.backward()
    opt.step()

model.eval()
code = export_translation(
    sys.argv[1] if len(sys.argv) > 1 else "lstm-luong-dot.onnx", model.encode, model.step,
    attention="luong-dot", src_vocab=src_vocab, tgt_vocab=tgt_vocab,
    special_tokens={"pad": "<pad>", "unk": "<unk>", "start": "<s>", "end": "</s>"},
    src_tokenizer={"type": "word"}, tgt_tokenizer={"type": "word"}, src_lang="en", tgt_lang="de",
    name="lstm-luong-dot")
with torch.no_grad():
    print(json.dumps({s: greedy(model, s) for s in ("a dog runs", "the woman reads a book")}, ensure_ascii=False))
sys.exit(code)
