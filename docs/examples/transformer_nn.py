"""A complete Transformer for Attention Lens, built from torch.nn parts: a post-norm
nn.TransformerEncoder and two post-norm decoder layers of two heads each, trained for a few
seconds to reverse a made-up language into colour words ("ba di fo" → "red green blue"), and
exported with the helper training/attention_lens_export.py (copy that file next to this one, or
run this in the repository):

    /usr/bin/python3 docs/examples/transformer_nn.py transformer-nn.onnx
    attention-lens check transformer-nn.onnx

The design differs from training/attention_lens/transformer.py on purpose, to show that the contract does not
ask for one architecture:

- **Post-norm** layers (LayerNorm after each residual), learned positions in the decoder,
  sinusoidal ones in the encoder (so sources of any length work), an untied output layer.
- **The state caches each decoder layer's input, not projected keys and values.** The state is
  [B, L, T, d]: slot t of layer l holds that layer's input at output position t. Each step writes
  its slot, and the self-attention is an ordinary nn.MultiheadAttention whose keys and values are
  the cached inputs (it projects them itself); slots after t are masked. That is T·d floats per
  layer instead of 2·T·d, at the cost of re-projecting the prefix every step (nothing at this
  size). Because the cached inputs are those actually computed, a what-if at step t also shapes
  the steps after it, exactly as if the whole prefix were decoded again with that change.
- **Cross-attention is written out** rather than taken from nn.MultiheadAttention, because the
  app's what-if needs to reach inside it: each head's weights can be replaced (`head_override`,
  `attn_override`, `override_on`) before the context, and each head's context scaled by
  `head_gate`. The step returns those weights, [B, L, H, S]; the helper adds `attention`, their
  mean over the heads the gates keep.

nn.MultiheadAttention stays seq-first (batch_first=False): in eval mode PyTorch 1.13 would
otherwise run its fused fast path, which has no ONNX export.
"""
import json
import math
import random
import sys
from pathlib import Path

import torch
import torch.nn as nn

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "training"))  # or copy the helper here
from attention_lens_export import export_translation  # noqa: E402

WORDS = {"ba": "blue", "di": "green", "fo": "red", "gu": "black", "ke": "white", "lo": "pink", "mi": "gray", "nu": "gold"}
SPECIAL = ["<pad>", "<unk>", "<s>", "</s>"]
PAD, UNK, BOS, EOS = range(4)
src_vocab = SPECIAL + sorted(WORDS)
tgt_vocab = SPECIAL + sorted(WORDS.values())
MAX_TARGET = 16  # T: the decoder's learned positions and cache slots


def reverse(source):
    return " ".join(WORDS[w] for w in reversed(source.split()))


class Seq2Seq(nn.Module):
    def __init__(self, d=32, heads=2, layers=2, ffn=64, T=MAX_TARGET):
        super().__init__()
        self.d, self.heads, self.T = d, heads, T
        self.src_emb, self.tgt_emb = nn.Embedding(len(src_vocab), d), nn.Embedding(len(tgt_vocab), d)
        self.tgt_pos = nn.Embedding(T, d)
        self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(d, heads, ffn, dropout=0.0), 2,
                                             enable_nested_tensor=False)
        self.self_attn = nn.ModuleList(nn.MultiheadAttention(d, heads) for _ in range(layers))
        self.q, self.k, self.v, self.o = (nn.ModuleList(nn.Linear(d, d) for _ in range(layers)) for _ in range(4))
        self.ffn = nn.ModuleList(nn.Sequential(nn.Linear(d, ffn), nn.ReLU(), nn.Linear(ffn, d)) for _ in range(layers))
        self.norms = nn.ModuleList(nn.ModuleList(nn.LayerNorm(d) for _ in range(3)) for _ in range(layers))
        self.out = nn.Linear(d, len(tgt_vocab))

    def encode(self, src_ids, src_mask):
        """encoder_out [B, S, d] (0 on padding) and the empty cache [B, L, T, d]."""
        pos = torch.cumsum(torch.ones_like(src_mask), 1).unsqueeze(2) - 1  # [B, S, 1]
        freq = torch.exp(torch.arange(0, self.d, 2).float() * (-math.log(10000.0) / self.d))
        x = self.src_emb(src_ids) * math.sqrt(self.d) + torch.cat([torch.sin(pos * freq), torch.cos(pos * freq)], 2)
        h = self.encoder(x.transpose(0, 1), src_key_padding_mask=src_mask == 0).transpose(0, 1)
        h = h * src_mask.unsqueeze(2)
        return h, torch.zeros(src_ids.shape[0], len(self.q), self.T, self.d)

    def step(self, prev_token, state, encoder_states, src_mask, step, attn_override=None, override_on=None,
             head_gate=None, head_override=None):
        B, S = src_mask.shape
        H, dh = self.heads, self.d // self.heads
        t = step.long()
        x = self.tgt_emb(prev_token) * math.sqrt(self.d) + self.tgt_pos(t)
        slots = torch.arange(self.T).unsqueeze(0)
        here = (slots == t.unsqueeze(1)).float().unsqueeze(2)  # [B, T, 1]: this step's slot
        future = slots > t.unsqueeze(1)  # [B, T]: slots not yet written (they may hold anything)
        caches, heads = [], []
        for l, (attn, norm) in enumerate(zip(self.self_attn, self.norms)):
            cache = state[:, l] * (1 - here) + x.unsqueeze(1) * here
            caches.append(cache)
            kv = cache.transpose(0, 1)
            a, _ = attn(x.unsqueeze(0), kv, kv, key_padding_mask=future, need_weights=False)
            x = norm[0](x + a.squeeze(0))
            # Cross-attention, head by head, so the app can override and silence each one.
            q = self.q[l](x).view(B, H, 1, dh)
            k = self.k[l](encoder_states).view(B, S, H, dh).transpose(1, 2)
            v = self.v[l](encoder_states).view(B, S, H, dh).transpose(1, 2)
            scores = (q @ k.transpose(2, 3)).squeeze(2) / math.sqrt(dh)  # [B, H, S]
            w = torch.softmax(scores.masked_fill(src_mask.unsqueeze(1) == 0, -1e9), 2)
            if head_override is not None:  # one head follows attn_override
                one = head_override[:, l].unsqueeze(2)
                w = one * attn_override.unsqueeze(1) + (1 - one) * w
            if override_on is not None:  # every head follows attn_override
                on = override_on.view(B, 1, 1)
                w = on * attn_override.unsqueeze(1) + (1 - on) * w
            w = w * src_mask.unsqueeze(1)  # an override cannot put weight on padding
            heads.append(w)
            context = (w.unsqueeze(2) @ v).squeeze(2)  # [B, H, dh]
            if head_gate is not None:  # a silenced head adds nothing
                context = context * head_gate[:, l].unsqueeze(2)
            x = norm[1](x + self.o[l](context.reshape(B, self.d)))
            x = norm[2](x + self.ffn[l](x))
        return self.out(x), torch.stack(caches, 1), torch.stack(heads, 1)


def ids(text, vocab, eos=True):
    return [vocab.index(w) if w in vocab else UNK for w in text.split()] + ([EOS] if eos else [])


def padded(rows):
    n = max(map(len, rows))
    return torch.tensor([r + [PAD] * (n - len(r)) for r in rows])


def greedy(model, text):
    """What the app does with the file: encode once, then step until </s> or min(2·S + 10, T)
    steps, never choosing <unk>."""
    src = torch.tensor([ids(text, src_vocab)])
    mask = torch.ones(src.shape)
    enc, state = model.encode(src, mask)
    prev, out = torch.tensor([BOS]), []
    for t in range(min(2 * src.shape[1] + 10, MAX_TARGET)):
        logits, state, _ = model.step(prev, state, enc, mask, torch.tensor([float(t)]))
        prev = logits.masked_fill(torch.arange(len(tgt_vocab)) == UNK, -math.inf).argmax(1)
        if prev.item() == EOS:
            break
        out.append(tgt_vocab[prev.item()])
    return " ".join(out)


torch.set_num_threads(1)
torch.manual_seed(0)
rng = random.Random(0)
model = Seq2Seq()
opt = torch.optim.Adam(model.parameters(), 3e-3)
for _ in range(400):  # teacher forcing through the very `step` that is exported
    sources = [" ".join(rng.choice(list(WORDS)) for _ in range(rng.randint(2, 6))) for _ in range(32)]
    src = padded([ids(s, src_vocab) for s in sources])
    mask = (src != PAD).float()
    tgt_in = padded([[BOS] + ids(reverse(s), tgt_vocab, eos=False) for s in sources])
    tgt_out = padded([ids(reverse(s), tgt_vocab) for s in sources])
    enc, state = model.encode(src, mask)
    loss = 0
    for t in range(tgt_in.shape[1]):
        logits, state, _ = model.step(tgt_in[:, t], state, enc, mask, torch.full((len(sources),), float(t)))
        loss = loss + nn.functional.cross_entropy(logits, tgt_out[:, t], ignore_index=PAD)
    opt.zero_grad()
    loss.backward()
    opt.step()

model.eval()
code = export_translation(
    sys.argv[1] if len(sys.argv) > 1 else "transformer-nn.onnx", model.encode, model.step,
    attention="transformer", layers=2, heads=2, max_target=MAX_TARGET, src_vocab=src_vocab, tgt_vocab=tgt_vocab,
    special_tokens={"pad": "<pad>", "unk": "<unk>", "bos": "<s>", "eos": "</s>"},
    src_tokenizer={"type": "word"}, tgt_tokenizer={"type": "word"}, src_lang="art", tgt_lang="en",
    name="transformer-nn")
with torch.no_grad():
    print(json.dumps({s: greedy(model, s) for s in ("ba di fo", "gu ke lo mi nu", "nu nu ba")}, ensure_ascii=False))
sys.exit(code)
