"""A small Transformer (Vaswani et al. 2017) under the same two-function contract as models.py.

`encode(src_ids, src_mask) -> (encoder_out, decoder_init)` and one decoder `step(...)` returning
named outputs (docs/model-format.md, "Transformer models"). The decoder state is a key/value cache
that grows by one position a step: before step t, `state` is [B, t·Z] with Z = L·2·d, laid out as
[B, t, L, 2 (K, V), d] (empty, [B, 0], before the first step); a step appends the projected key and
value of its own position and attends to positions 0..t. So a step costs one position and reads
only the t positions written so far, and the app can keep treating the state as an opaque
vector it feeds back (and reorders for beam search). The output length is capped at T
(`max_target`), the longest target the model was trained on.

Training runs the decoder over the whole target at once (a causal mask instead of the cache).
`step` computes the same function for one query per row, written for the exported graph: no
reshapes into heads (whose shape arithmetic, in onnxruntime, costs more than the products at one
position) but a constant [h, d] block matrix: the query times it is one row per head, zero
outside the head's dh coordinates, so a batched product with the keys gives every head's scores,
and the weights times the values, masked by it and summed over heads, every head's context. `check_step_matches_forward` holds
the two to each other, so what is exported is what was trained.
Greedy and beam search are models.greedy / models.beam_search's rules with the step count capped
at T, `<unk>` masked, and unknown-word replacement
(models.replace_unknowns) reads `attention`, the mean of the cross-attention heads.
"""
import json
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from . import models

NEG = -1e9
KIND = "transformer"


def sinusoid(pos, d):
    """Sinusoidal position encodings of float positions `pos` [...] -> [..., d]: the first half
    sines, the second half cosines (no parameters, so any source length works)."""
    i = torch.arange(0, d, 2, dtype=torch.float32)
    ang = pos.unsqueeze(-1) * torch.exp(i * (-math.log(10000.0) / d))
    return torch.cat([torch.sin(ang), torch.cos(ang)], -1)


def _softmax_masked(scores, allowed):
    """Softmax over the last axis where `allowed`; disallowed positions get exactly 0, so padding
    and future positions carry no weight whatever they hold."""
    w = torch.softmax(torch.where(allowed, scores, torch.full_like(scores, NEG)), -1)
    return w * allowed.float()


class Attention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        assert d % heads == 0
        self.h, self.dh = heads, d // heads
        self.q = nn.Linear(d, d)
        self.k = nn.Linear(d, d)
        self.v = nn.Linear(d, d)
        self.o = nn.Linear(d, d)

    def split(self, x):
        """[B, N, d] -> [B, h, N, dh]: head i is the slice i·dh..(i+1)·dh of d."""
        return x.reshape(x.shape[0], x.shape[1], self.h, self.dh).transpose(1, 2)

    def merge(self, x):
        """[B, h, N, dh] -> [B, N, d]."""
        return x.transpose(1, 2).reshape(x.shape[0], x.shape[2], self.h * self.dh)

    def weights(self, q_in, K, allowed):
        """Per-head weights [B, h, Nq, Nk] of queries from q_in [B, Nq, d] over projected keys K [B, Nk, d]."""
        scores = torch.matmul(self.split(self.q(q_in)), self.split(K).transpose(2, 3)) / math.sqrt(self.dh)
        return _softmax_masked(scores, allowed)

    def context(self, w, V):
        """Output [B, Nq, d] from weights [B, h, Nq, Nk] over projected values V [B, Nk, d]."""
        return self.o(self.merge(torch.matmul(w, self.split(V))))


class FFN(nn.Module):
    def __init__(self, d, ffn, dropout):
        super().__init__()
        self.fc1 = nn.Linear(d, ffn)
        self.fc2 = nn.Linear(ffn, d)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return self.fc2(self.drop(F.relu(self.fc1(x))))


class EncoderLayer(nn.Module):
    def __init__(self, d, heads, ffn, dropout):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = Attention(d, heads)
        self.ffn = FFN(d, ffn, dropout)
        self.drop = nn.Dropout(dropout)

    def forward(self, x, allowed):
        y = self.ln1(x)
        x = x + self.drop(self.attn.context(self.attn.weights(y, self.attn.k(y), allowed), self.attn.v(y)))
        return x + self.drop(self.ffn(self.ln2(x)))


class DecoderLayer(nn.Module):
    """Pre-norm: self-attention, cross-attention, feed-forward, each x + drop(f(LN(x)))."""

    def __init__(self, d, heads, ffn, dropout):
        super().__init__()
        self.ln1, self.ln2, self.ln3 = nn.LayerNorm(d), nn.LayerNorm(d), nn.LayerNorm(d)
        self.self_attn = Attention(d, heads)
        self.cross = Attention(d, heads)
        self.ffn = FFN(d, ffn, dropout)
        self.drop = nn.Dropout(dropout)


class Transformer(nn.Module):
    def __init__(self, src_vocab, tgt_vocab, d=256, heads=4, enc_layers=3, dec_layers=3, ffn=1024,
                 max_target=128, dropout=0.1, attend_eos=True):
        super().__init__()
        self.kind = KIND
        # False: cross-attention never reads the source `</s>` (models.without_eos), the recipe of
        # every RNN kind; the encoder's self-attention still reads it.
        self.attend_eos = attend_eos
        self.d, self.heads, self.ffn_dim, self.max_target = d, heads, ffn, max_target
        self.enc_layers_n, self.dec_layers_n = enc_layers, dec_layers
        self.mem = d  # the size of one encoder state (M in the contract)
        self.src_emb = nn.Embedding(src_vocab, d, padding_idx=0)
        self.tgt_emb = nn.Embedding(tgt_vocab, d, padding_idx=0)
        # Embeddings are scaled by sqrt(d) on the way in; this init keeps the tied output layer's
        # logits of order 1 at the start.
        for e in (self.src_emb, self.tgt_emb):
            nn.init.normal_(e.weight, 0.0, d ** -0.5)
            with torch.no_grad():
                e.weight[0].zero_()
        self.enc = nn.ModuleList(EncoderLayer(d, heads, ffn, dropout) for _ in range(enc_layers))
        self.dec = nn.ModuleList(DecoderLayer(d, heads, ffn, dropout) for _ in range(dec_layers))
        self.enc_norm, self.dec_norm = nn.LayerNorm(d), nn.LayerNorm(d)
        # step's heads: row i of head_blocks is 1 on head i's dh coordinates; head_query is that
        # over sqrt(dh), the scores' scale. Not parameters: not saved, not in the state dict.
        blocks = torch.repeat_interleave(torch.eye(heads), d // heads, dim=1)  # [h, d]
        self.register_buffer("head_blocks", blocks, persistent=False)
        self.register_buffer("head_query", blocks / math.sqrt(d // heads), persistent=False)
        self.drop = nn.Dropout(dropout)
        # Output layer tied to the target embedding keeps the file small.
        self.proj_bias = nn.Parameter(torch.zeros(tgt_vocab))

    @property
    def state_dim(self):
        """The state's width per decoded position (al.state_size): L keys and L values of size d."""
        return self.dec_layers_n * 2 * self.d

    def sizes(self):
        return {"d_model": self.d, "heads": self.heads, "enc_layers": self.enc_layers_n,
                "dec_layers": self.dec_layers_n, "ffn": self.ffn_dim, "max_target": self.max_target,
                "parameters": sum(p.numel() for p in self.parameters()),
                "src_vocab": self.src_emb.num_embeddings, "tgt_vocab": self.tgt_emb.num_embeddings}

    def _cross_allowed(self, mask):
        return (mask if self.attend_eos else models.without_eos(mask)) > 0

    def _logits(self, x):
        return F.linear(self.drop(x), self.tgt_emb.weight, self.proj_bias)

    def encode(self, src, mask):
        pos = torch.cumsum(torch.ones_like(mask), 1) - 1
        x = self.drop(self.src_emb(src) * math.sqrt(self.d) + sinusoid(pos, self.d))
        allowed = (mask > 0).unsqueeze(1).unsqueeze(2)  # [B,1,1,S]
        for layer in self.enc:
            x = layer(x, allowed)
        H = self.enc_norm(x) * mask.unsqueeze(2)
        # The empty cache [B, 0]; read off src_mask so that it has the batch's (dynamic) size.
        init = mask[:, :0] * 1.0
        return H, init

    def forward(self, src, mask, tgt_in):
        """Teacher-forced logits [B,T,V] for training: all target positions at once, a causal mask
        in place of the cache (equal to running `step` T times; see check_step_matches_forward).
        Positions where `tgt_in` is padding get logits 0."""
        H, _ = self.encode(src, mask)
        Tn = tgt_in.shape[1]
        pos = torch.arange(Tn, dtype=torch.float32)
        x = self.drop(self.tgt_emb(tgt_in) * math.sqrt(self.d) + sinusoid(pos, self.d))
        causal = (pos.unsqueeze(0) <= pos.unsqueeze(1)).unsqueeze(0).unsqueeze(0)  # [1,1,Tq,Tk]
        src_allowed = self._cross_allowed(mask).unsqueeze(1).unsqueeze(2)
        cross = []
        for layer in self.dec:
            y = layer.ln1(x)
            sa, ca = layer.self_attn, layer.cross
            x = x + layer.drop(sa.context(sa.weights(y, sa.k(y), causal), sa.v(y)))
            w = ca.weights(layer.ln2(x), ca.k(H), src_allowed)  # [B,h,T,S]
            cross.append(w)
            x = x + layer.drop(ca.context(w, ca.v(H)))
            x = x + layer.drop(layer.ffn(layer.ln3(x)))
        # Every layer's cross-attention [B,h,T,S] of this pass, for train.py's --guided-align (a
        # training-time loss on one head; the step computes the same weights).
        self.cross_attention = cross
        # The output layer is a third of the work; padding positions (ignored by the loss, as
        # `tgt_in` and `tgt_out` pad the same positions) keep logits 0 instead.
        real = tgt_in != 0
        h = self.dec_norm(x)
        out = h.new_zeros(h.shape[0], h.shape[1], self.tgt_emb.num_embeddings)
        out[real] = self._logits(h[real])
        return out

    def step(self, prev, state, H, mask, step_idx, override, override_on, head_gate=None, head_override=None):
        """One decoder step at position `step_idx` [B] (float, 0-based, < max_target), which is the
        number of positions already in the cache `state` [B, t·L·2·d].

        override [B,S] and override_on [B,1] as in models.Seq2Seq.step (1 = every head of every
        layer uses `override`); head_override [B,L,h] (1 = that head uses `override`),
        head_gate [B,L,h] (scales each cross-attention head's output; default 1)."""
        L, d, nh = self.dec_layers_n, self.d, self.heads
        if head_gate is None:
            head_gate = torch.ones(prev.shape[0], L, nh)
        if head_override is None:
            head_override = torch.zeros(prev.shape[0], L, nh)
        # Layer l's cached keys and values of positions 0..t-1: [B, t, d] each, one Split.
        cached = state.reshape(state.shape[0], -1, L * 2 * d).split(d, dim=2)
        x = self.drop(self.tgt_emb(prev) * math.sqrt(d) + sinusoid(step_idx, d))  # [B,d]
        src_allowed = self._cross_allowed(mask).unsqueeze(1)  # [B,1,S]
        srcf = mask.unsqueeze(1)  # [B,1,S]
        on = override_on.reshape(-1, 1, 1)
        ov = override.unsqueeze(1)  # [B,1,S]
        written, cross = [], []

        def heads_of(q):  # [B,d] -> [B,h,d]: head i's query on its own coordinates, scaled
            return q.unsqueeze(1) * self.head_query

        def context(w, V):  # weights [B,h,N] over values [B,N,d] -> [B,d], each head its coordinates
            return (torch.matmul(w, V) * self.head_blocks).sum(1)

        for l, layer in enumerate(self.dec):
            sa, xa = layer.self_attn, layer.cross
            y = layer.ln1(x)
            k, v = sa.k(y), sa.v(y)  # [B,d]: this position's
            written += [k, v]
            # Every cached position is in the past, so no mask.
            K = torch.cat([cached[2 * l], k.unsqueeze(1)], 1)  # [B,t+1,d]
            V = torch.cat([cached[2 * l + 1], v.unsqueeze(1)], 1)
            w = torch.softmax(torch.matmul(K, heads_of(sa.q(y)).transpose(1, 2)), 1).transpose(1, 2)  # [B,h,t+1]
            x = x + layer.drop(sa.o(context(w, V)))
            # The encoder side, [B,d,S] and [B,S,d], depends on the sentence only: the app computes it once.
            KcT, Vc = xa.k(H).transpose(1, 2), xa.v(H)
            a = _softmax_masked(torch.matmul(heads_of(xa.q(layer.ln2(x))), KcT), src_allowed)  # [B,h,S]
            ho = head_override[:, l].unsqueeze(2)  # [B,h,1]
            w = ho * ov + (1 - ho) * a
            # Padding gets no weight even from an override (its encoder state is zero, but its
            # value projection is the bias, which would leak into the context).
            w = (on * ov + (1 - on) * w) * srcf
            cross.append(w)
            # A head's gate scales its context (0 silences it).
            x = x + layer.drop(xa.o(context(w * head_gate[:, l].unsqueeze(2), Vc)))
            x = x + layer.drop(layer.ffn(layer.ln3(x)))
        ca = torch.stack(cross, 1)  # [B,L,h,S]
        g = head_gate.unsqueeze(3)
        # The heads' weights averaged as they were used: a silenced head (gate 0) does not count;
        # with every gate 1 this is the plain mean, a distribution over the source.
        attention = (ca * g).sum(2).sum(1) / torch.clamp(head_gate.sum(2).sum(1), min=1e-9).unsqueeze(1)
        # This position's keys and values appended in the [L, 2, d] order of `cached`.
        return {
            "logits": self._logits(self.dec_norm(x)),
            "next_state": torch.cat([state] + written, 1),
            "attention": attention,
            "cross_attention": ca,
        }


STEP_OUTPUTS = ["logits", "next_state", "attention", "cross_attention"]


def from_args(a, src_vocab, tgt_vocab):
    return Transformer(src_vocab, tgt_vocab, d=a.d_model, heads=a.heads, enc_layers=a.layers, dec_layers=a.layers,
                       ffn=a.ffn, max_target=a.max_target, dropout=a.dropout, attend_eos=bool(a.attend_eos))


@torch.no_grad()
def greedy(model, src, mask, max_len, bos=2, eos=3):
    """models.greedy with at most max_target steps (the cache holds T positions)."""
    return models.greedy(model, src, mask, min(max_len, model.max_target), bos, eos)


@torch.no_grad()
def beam_search(model, src, mask, K=5, alpha=1.0, bos=2, eos=3):
    """models.beam_search, the app's beamDecode, with maxLen = min(2·S + 10, T) per sentence."""
    return models.beam_search(model, src, mask, K, alpha, bos, eos, max_target=model.max_target)


@torch.no_grad()
def check_step_matches_forward(model, src, mask, tgt_in, tol=1e-4):
    """Teacher-forced logits from `forward` (causal mask, all positions at once) against `step`
    run position by position through the cache; returns the largest absolute difference and
    asserts it is below `tol`."""
    model.eval()
    full = model(src, mask, tgt_in)
    H, state = model.encode(src, mask)
    B, S = src.shape
    worst = 0.0
    for t in range(tgt_in.shape[1]):
        o = model.step(tgt_in[:, t], state, H, mask, torch.full((B,), float(t)), torch.zeros(B, S), torch.zeros(B, 1))
        state = o["next_state"]
        real = tgt_in[:, t] != 0  # forward leaves padding positions at 0
        if bool(real.any()):
            worst = max(worst, (o["logits"] - full[:, t])[real].abs().max().item())
    assert worst < tol, f"step and forward differ by {worst}"
    return worst


# Shared with the RNNs (models.py): weights stored as float16 under `<name>.float16`.
FLOAT16_SUFFIX = models.FLOAT16_SUFFIX
round_to_float16 = models.round_to_float16


def load_from_onnx(path):
    """The model back from an exported file: sizes from al.model_card, weights from the
    initializers (which keep their PyTorch names under `model.`)."""
    import onnx
    from onnx import numpy_helper
    m = onnx.load(path)
    meta = {p.key: p.value for p in m.metadata_props}
    assert meta.get("al.attention") == KIND, meta.get("al.attention")
    card = json.loads(meta["al.model_card"])
    s = card["sizes"]
    model = Transformer(s["src_vocab"], s["tgt_vocab"], s["d_model"], s["heads"], s["enc_layers"], s["dec_layers"],
                        s["ffn"], s["max_target"], dropout=0.0, attend_eos=card["training"].get("attend_eos", True))
    keep = set(model.state_dict())  # not the head_blocks / head_query constants
    weights = {n: w for n, w in ((i.name[len("model."):].removesuffix(FLOAT16_SUFFIX), i) for i in m.graph.initializer
                                 if i.name.startswith("model.")) if n in keep}
    weights = {n: torch.from_numpy(numpy_helper.to_array(i).copy()).float() for n, i in weights.items()}
    model.load_state_dict(weights)
    model.eval()
    return model, meta
