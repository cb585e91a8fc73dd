"""Encoder-decoder models: one bidirectional GRU encoder, seven ways to attend.

Every model is written as two functions that the ONNX export keeps apart by output name:
`encode(src_ids, src_mask) -> (encoder_out, decoder_init)` and one decoder `step(...)`.
Training calls the same `step` in a loop, so what is exported is what was trained.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

KINDS = ("none", "bahdanau", "luong-dot", "luong-general", "luong-concat", "local-m", "local-p")
NEG = -1e9


def local_attention(scores, mask, p, window, gaussian, real=None):
    """Luong's local attention around p [B,1]: a softmax over the window [p-D, p+D], times the
    Gaussian exp(-(s-p)^2 / (2 sigma^2)), sigma = D/2 (or a factor of 1 inside the window, as
    local-m has it). Returns the weights and the step outputs that show how they were made.
    `mask` is what attention may read; the `gaussian` output covers every `real` source position
    (default: `mask`), so a model that never reads `</s>` still shows the curve there, as the
    app's contract check expects (the weights are 0 there all the same)."""
    real = mask if real is None else real
    pos = torch.cumsum(torch.ones_like(mask), 1) - 1
    valid = (mask > 0) & (torch.abs(pos - p) <= window)
    align = torch.softmax(torch.where(valid, scores, torch.full_like(scores, NEG)), 1)
    align = align * valid.float()
    if gaussian:
        sigma = window / 2.0
        gauss = torch.exp(-((pos - p) ** 2) / (2 * sigma * sigma)) * real
    else:
        gauss = valid.float()
    named = {"position": p.squeeze(1), "window": torch.cat([p - window, p + window], 1), "gaussian": gauss, "align": align}
    return align * gauss, named


class GRUCell(nn.Module):
    """GRU cell from two linear maps, trained as such. For export (`as_onnx_gru`) the same weights
    become one ONNX GRU node (linear_before_reset = 1 is exactly this cell): onnxruntime's fused
    kernel instead of two MatMuls and a dozen element-wise nodes per step."""

    def __init__(self, inp, hid):
        super().__init__()
        self.ih = nn.Linear(inp, 3 * hid)
        self.hh = nn.Linear(hid, 3 * hid)
        self.onnx_gru = False

    def forward(self, x, h):
        if self.onnx_gru:
            return _OnnxGRU.apply(x, h, self.gru_W, self.gru_R, self.gru_B)
        ir, iz, inn = self.ih(x).chunk(3, 1)
        hr, hz, hn = self.hh(h).chunk(3, 1)
        r = torch.sigmoid(ir + hr)
        z = torch.sigmoid(iz + hz)
        n = torch.tanh(inn + r * hn)
        return (1 - z) * n + z * h

    def as_onnx_gru(self):
        """Adds the weights in ONNX's GRU layout (gates z, r, h; one direction) as parameters
        gru_W, gru_R, gru_B and makes forward use them; ih/hh stay for `from_onnx_gru`."""
        def zrh(t):
            r, z, n = t.detach().chunk(3, 0)
            return torch.cat([z, r, n], 0)
        self.gru_W = nn.Parameter(zrh(self.ih.weight).unsqueeze(0))
        self.gru_R = nn.Parameter(zrh(self.hh.weight).unsqueeze(0))
        self.gru_B = nn.Parameter(torch.cat([zrh(self.ih.bias), zrh(self.hh.bias)]).unsqueeze(0))
        self.onnx_gru = True
        return self


def gru_weights_from_onnx(prefix, W, R, B):
    """The name map back: ONNX GRU initializers `<prefix>gru_W/R/B` -> this cell's ih/hh weights
    (so the benchmark's PyTorch side loads the very weights the exported file runs)."""
    def rzn(t):
        z, r, n = t.chunk(3, 0)
        return torch.cat([r, z, n], 0)
    H = R.shape[2]
    return {prefix + "ih.weight": rzn(W[0]), prefix + "hh.weight": rzn(R[0]),
            prefix + "ih.bias": rzn(B[0, :3 * H]), prefix + "hh.bias": rzn(B[0, 3 * H:])}


class _OnnxGRU(torch.autograd.Function):
    """One GRU step [B,I],[B,H] -> [B,H] with ONNX-layout weights; exports as a GRU node."""

    @staticmethod
    def forward(ctx, x, h, W, R, B):
        Hd = h.shape[1]
        gi = x @ W[0].t() + B[0, :3 * Hd]
        gh = h @ R[0].t() + B[0, 3 * Hd:]
        iz, ir, inn = gi.chunk(3, 1)
        hz, hr, hn = gh.chunk(3, 1)
        z = torch.sigmoid(iz + hz)
        r = torch.sigmoid(ir + hr)
        n = torch.tanh(inn + r * hn)
        return (1 - z) * n + z * h

    @staticmethod
    def symbolic(g, x, h, W, R, B):
        from torch.onnx.symbolic_opset9 import unused
        axis0 = g.op("Constant", value_t=torch.tensor([0], dtype=torch.long))
        _, y_h = g.op("GRU", g.op("Unsqueeze", x, axis0), W, R, B, unused(g), g.op("Unsqueeze", h, axis0),
                      hidden_size_i=int(R.type().sizes()[2]), linear_before_reset_i=1, outputs=2)
        return g.op("Squeeze", y_h, axis0)


class Encoder(nn.Module):
    """Bidirectional GRU that respects padding without packed sequences (which ONNX export
    handles badly): the backward GRU reads each sentence reversed within its own length."""

    def __init__(self, vocab, emb, hid, dropout):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb, padding_idx=0)
        self.fwd = nn.GRU(emb, hid, batch_first=True)
        self.bwd = nn.GRU(emb, hid, batch_first=True)
        self.drop = nn.Dropout(dropout)

    def forward(self, src, mask):
        x = self.drop(self.emb(src))
        lengths = mask.sum(1, keepdim=True).long()  # [B,1]
        pos = torch.cumsum(torch.ones_like(src), 1) - 1  # [B,S]
        rev = torch.where(pos < lengths, lengths - 1 - pos, pos)
        idx = rev.unsqueeze(2).expand(-1, -1, x.shape[2])
        hf, _ = self.fwd(x)
        hb_rev, _ = self.bwd(torch.gather(x, 1, idx))
        hb = torch.gather(hb_rev, 1, rev.unsqueeze(2).expand(-1, -1, hb_rev.shape[2]))
        states = torch.cat([hf, hb], 2) * mask.unsqueeze(2)
        last = (lengths - 1).clamp(min=0).unsqueeze(2).expand(-1, 1, hf.shape[2])
        final = torch.cat([torch.gather(hf, 1, last).squeeze(1), hb[:, 0]], 1)
        return states, final


def without_eos(mask):
    """The source mask without each sentence's final `</s>` (kept when it is the only token).
    With it attendable, the additive scores (Bahdanau, Luong concat) park 18-42 % of every step's
    weight on `</s>`: its encoder state is the forward GRU's whole-sentence summary next to a
    backward half that has read nothing but `</s>` (the same vector in every sentence), a
    query-independent key a score of the form v^T tanh(W s + U h_j) can always rank first."""
    pos = torch.cumsum(torch.ones_like(mask), 1) - 1
    length = mask.sum(1, keepdim=True)
    return mask * ((pos < length - 1) | (length <= 1)).float()


class Seq2Seq(nn.Module):
    def __init__(self, kind, src_vocab, tgt_vocab, emb=128, hid=128, dec=256, window=4,
                 local_m_ratio=1.0, dropout=0.2, attend_eos=True):
        super().__init__()
        assert kind in KINDS, kind
        self.kind, self.window, self.local_m_ratio = kind, window, local_m_ratio
        # False: attention never reads the source `</s>` (see without_eos); the decoder still
        # starts from the encoder's final states, which have read it.
        self.attend_eos = attend_eos
        mem = 2 * hid
        self.mem, self.dec_dim, self.emb_dim = mem, dec, emb
        self.encoder = Encoder(src_vocab, emb, hid, dropout)
        self.tgt_emb = nn.Embedding(tgt_vocab, emb, padding_idx=0)
        self.init = nn.Linear(mem, dec)
        self.drop = nn.Dropout(dropout)
        self.luong = kind.startswith("luong") or kind.startswith("local")
        if kind in ("none", "bahdanau"):
            # Cho/Bahdanau decoder: the context enters the GRU and the output layer.
            self.cell = GRUCell(emb + mem, dec)
            self.out = nn.Linear(dec + mem + emb, emb)
            if kind == "bahdanau":
                self.W_a = nn.Linear(dec, dec, bias=False)
                self.U_a = nn.Linear(mem, dec)
                self.v_a = nn.Linear(dec, 1, bias=False)
        else:
            # Luong decoder with input feeding: the state carries s_t and the attentional h~_t.
            self.cell = GRUCell(emb + dec, dec)
            self.W_c = nn.Linear(mem + dec, dec)
            self.out = nn.Linear(dec, emb)
            if kind == "luong-dot":
                assert mem == dec
            elif kind == "luong-concat":
                self.W_cat = nn.Linear(dec + mem, dec)
                self.v_cat = nn.Linear(dec, 1, bias=False)
            else:  # general score, also used inside the local windows
                self.W_gen = nn.Linear(mem, dec, bias=False)
            if kind == "local-p":
                self.W_p = nn.Linear(dec, dec)
                self.v_p = nn.Linear(dec, 1, bias=False)
        # Output layer tied to the target embedding keeps the files small.
        self.proj_bias = nn.Parameter(torch.zeros(tgt_vocab))

    @property
    def state_dim(self):
        return 2 * self.dec_dim if self.luong else self.dec_dim

    def encode(self, src, mask):
        states, final = self.encoder(src, mask)
        init = torch.tanh(self.init(final))
        if self.luong:
            init = torch.cat([init, torch.zeros_like(init)], 1)
        if self.kind == "none":
            # The bottleneck: the only thing the decoder ever sees of the source.
            states = final.unsqueeze(1)
        return states, init

    def _logits(self, o):
        return F.linear(self.drop(o), self.tgt_emb.weight, self.proj_bias)

    def keys(self, H):
        """The part of the score that depends only on the encoder states. Training computes it once
        per batch; the exported step computes it itself, so the ONNX contract stays one step."""
        if self.kind == "bahdanau":
            return self.U_a(H)
        if self.kind in ("luong-general", "local-m", "local-p"):
            return self.W_gen(H)
        if self.kind == "luong-concat":
            # W_cat [s; h_j] = W_s s + W_h h_j: the h_j half (and the bias) once per sentence, as
            # for Bahdanau, instead of a [S, dec + mem] product at every step.
            return F.linear(H, self.W_cat.weight[:, self.dec_dim:], self.W_cat.bias)
        return H

    def _luong_scores(self, s, H, K):
        if self.kind == "luong-concat":
            query = F.linear(s, self.W_cat.weight[:, :self.dec_dim])
            return self.v_cat(torch.tanh(query.unsqueeze(1) + K)).squeeze(2)
        return torch.bmm(K, s.unsqueeze(2)).squeeze(2)

    def step(self, prev, state, H, mask, step_idx, override, override_on, K=None, project=True):
        """One decoder step. Returns a dict of named outputs (see docs/model-format.md)."""
        if K is None:
            K = self.keys(H)
        e = self.drop(self.tgt_emb(prev))
        out = {}
        proj = self._logits if project else (lambda o: o)
        if self.kind == "none":
            c = H[:, 0]
            s = self.cell(torch.cat([e, c], 1), state)
            out["logits"] = proj(torch.tanh(self.out(torch.cat([s, c, e], 1))))
            out["next_state"] = s
            return out
        length = mask.sum(1, keepdim=True)
        real = mask
        if not self.attend_eos:
            mask = without_eos(mask)
        if self.kind == "bahdanau":
            scores = self.v_a(torch.tanh(self.W_a(state).unsqueeze(1) + K)).squeeze(2)
            weights = torch.softmax(torch.where(mask > 0, scores, torch.full_like(scores, NEG)), 1)
            weights = override_on * override + (1 - override_on) * weights
            c = torch.bmm(weights.unsqueeze(1), H).squeeze(1)
            s = self.cell(torch.cat([e, c], 1), state)
            out["logits"] = proj(torch.tanh(self.out(torch.cat([s, c, e], 1))))
            out["next_state"] = s
            out["attention"] = weights
            out["scores"] = scores
            return out
        d = self.dec_dim
        s_prev, feed = state[:, :d], state[:, d:]
        s = self.cell(torch.cat([e, feed], 1), s_prev)
        scores = self._luong_scores(s, H, K)
        if self.kind.startswith("local"):
            # p_t ranges over the whole source, </s> included, as before (length counts it).
            if self.kind == "local-m":
                p = torch.minimum(step_idx.unsqueeze(1) * self.local_m_ratio, length - 1)
            else:
                p = length * torch.sigmoid(self.v_p(torch.tanh(self.W_p(s))))
            weights, local = local_attention(scores, mask, p, self.window, self.kind == "local-p", real)
            out.update(local)
        else:
            weights = torch.softmax(torch.where(mask > 0, scores, torch.full_like(scores, NEG)), 1)
        weights = override_on * override + (1 - override_on) * weights
        c = torch.bmm(weights.unsqueeze(1), H).squeeze(1)
        h_tilde = torch.tanh(self.W_c(torch.cat([c, s], 1)))
        out["logits"] = proj(self.out(h_tilde))
        out["next_state"] = torch.cat([s, h_tilde], 1)
        out["attention"] = weights
        out["scores"] = scores
        return out

    def forward(self, src, mask, tgt_in):
        """Teacher-forced logits [B,T,V] for training."""
        H, state = self.encode(src, mask)
        B, T = tgt_in.shape
        S = H.shape[1]
        no_override = torch.zeros(B, S)
        off = torch.zeros(B, 1)
        K = self.keys(H)
        hidden, positions, attention = [], [], []
        for t in range(T):
            o = self.step(tgt_in[:, t], state, H, mask if self.kind != "none" else mask[:, :1],
                          torch.full((B,), float(t)), no_override, off, K=K, project=False)
            state = o["next_state"]
            hidden.append(o["logits"])
            if "position" in o:
                positions.append(o["position"])
            if "attention" in o:
                attention.append(o["attention"])
        # local-p's p_t [B,T] of this pass, for train.py's --p-guide / --p-align, and every step's
        # attention [B,T,S], for --guided-align (training-time loss terms only).
        self.positions = torch.stack(positions, 1) if positions else None
        self.attention = torch.stack(attention, 1) if attention else None
        # One large output projection for all steps instead of T small ones.
        return self._logits(torch.stack(hidden, 1))


def diagonal_guide(positions, mask, tgt_out, attend_eos=True):
    """Mean smooth-L1 distance (in source positions) of local-p's p_t [B,T] from the diagonal
    t * last / (T_b - 1), where last is the last position attention may read and T_b the
    sentence's target length (fast_align's diagonal prior, Dyer et al. 2013). A curriculum for
    the first epochs: with a narrow window, a p_t that starts far from the words it needs gets
    no gradient from them (training/README.md)."""
    real = (tgt_out != 0).float()
    S = mask.sum(1, keepdim=True)
    last = torch.clamp(S - (1 if attend_eos else 2), min=0)
    T = torch.clamp(real.sum(1, keepdim=True) - 1, min=1)
    t = torch.cumsum(torch.ones_like(real), 1) - 1
    target = torch.minimum(t * last / T, last)
    d = F.smooth_l1_loss(positions, target, reduction="none", beta=1.0)
    return (d * real).sum() / real.sum()


STEP_OUTPUTS = ("logits", "next_state", "attention", "scores", "position", "window", "gaussian", "align")


def step_outputs(kind):
    if kind == "none":
        return ["logits", "next_state"]
    if kind.startswith("local"):
        return list(STEP_OUTPUTS)
    return ["logits", "next_state", "attention", "scores"]


UNK = 1
FLOAT16_SUFFIX = ".float16"


@torch.no_grad()
def round_to_float16(model):
    """Rounds every parameter to the nearest float16 value (kept as float32): what the exported
    file stores (export.store_float16), so PyTorch and onnxruntime compute with the same numbers."""
    for p in model.parameters():
        p.copy_(p.half().float())


def mask_unk(logits, unk=UNK):
    """Decoding never emits `<unk>`: its logit is set to -inf before the argmax / log-softmax (so
    beam scores are log-probabilities renormalised over the other tokens)."""
    logits = logits.clone()
    logits[:, unk] = float("-inf")
    return logits


@torch.no_grad()
def greedy(model, src, mask, max_len, bos=2, eos=3, keys_once=False):
    """Batched greedy decoding with `<unk>` masked; returns token id lists (without </s>) and
    per-step outputs. max_len is 2*S+10 (S counts the source's </s>), as in the app.
    keys_once: the attention keys computed once per sentence (as the exported graph does) rather
    than by every step; the same steps and outputs (bench_torch.py times the two)."""
    model.eval()
    H, state = model.encode(src, mask)
    K = model.keys(H) if keys_once else None
    B, S = H.shape[0], H.shape[1]
    m = mask if model.kind != "none" else mask[:, :1]
    prev = torch.full((B,), bos, dtype=torch.long)
    done = torch.zeros(B, dtype=torch.bool)
    ids = [[] for _ in range(B)]
    steps = []
    for t in range(max_len):
        # Only the RNN step takes K (the Transformer's greedy comes through here without it).
        o = model.step(prev, state, H, m, torch.full((B,), float(t)), torch.zeros(B, S), torch.zeros(B, 1),
                       **({"K": K} if keys_once else {}))
        state = o["next_state"]
        prev = mask_unk(o["logits"]).argmax(1)
        steps.append({k: v.clone() for k, v in o.items() if k not in ("logits", "next_state")})
        for b in range(B):
            if not done[b]:
                if prev[b].item() == eos:
                    done[b] = True
                else:
                    ids[b].append(prev[b].item())
        if bool(done.all()):
            break
    return ids, steps


@torch.no_grad()
def beam_search(model, src, mask, K=5, alpha=1.0, bos=2, eos=3, max_target=None):
    """Beam search, several sentences at once, each exactly as the app's beamDecode
    (src/engine/decode.ts) runs one sentence:

    - step log-probabilities are log_softmax(logits with `<unk>` at -inf);
    - each live hypothesis proposes its K best tokens; all candidates are sorted by summed
      log-probability (stable sort, hypotheses in beam order, tokens best first); walking that
      list, a candidate ending in </s> goes to `finished`, any other to the next beam, until the
      next beam holds K;
    - norm(h) = score / max(len(h), 1)**alpha, len counting the </s> step;
    - a live hypothesis is dropped when score / maxLen**alpha <= the best finished norm; the
      search stops when K hypotheses have finished, none is live, or after maxLen = 2*S+10 steps;
    - the answer is the finished hypothesis with the highest norm (the live ones if none finished).

    Returns token id lists without </s>."""
    model.eval()
    H, init = model.encode(src, mask)
    B = H.shape[0]
    m = mask if model.kind != "none" else mask[:, :1]
    lengths = mask.sum(1).long().tolist()
    # A model whose state caches a fixed number of steps (the Transformer's T) stops there too.
    max_lens = [2 * n + 10 if max_target is None else min(2 * n + 10, max_target) for n in lengths]
    # per sentence: alive = [(tokens, score, row)], finished = [(tokens, score)]
    alive = [[([], 0.0, b)] for b in range(B)]
    finished = [[] for _ in range(B)]
    state = init
    norm = lambda toks, score: score / (max(len(toks), 1) ** alpha)  # noqa: E731
    t = 0
    while any(alive):
        rows = [(b, h) for b in range(B) for h in alive[b]]
        idx = torch.tensor([h[2] for _, h in rows])
        sent = torch.tensor([b for b, _ in rows])
        prev = torch.tensor([h[0][-1] if h[0] else bos for _, h in rows])
        n = len(rows)
        o = model.step(prev, state[idx], H[sent], m[sent], torch.full((n,), float(t)),
                       torch.zeros(n, H.shape[1]), torch.zeros(n, 1))
        logp = torch.log_softmax(mask_unk(o["logits"]), 1)
        top_v, top_i = logp.topk(K, 1)
        top_v, top_i = top_v.tolist(), top_i.tolist()
        new_alive = [[] for _ in range(B)]
        r = 0
        for b in range(B):
            cands = []
            for h in alive[b]:
                for v, tok in zip(top_v[r], top_i[r]):
                    cands.append((h[0] + [tok], h[1] + v, r, tok == eos))
                r += 1
            if not cands:
                continue
            cands.sort(key=lambda c: -c[1])
            nxt = []
            for c in cands:
                if len(nxt) == K:
                    break
                if c[3]:
                    finished[b].append((c[0], c[1]))
                else:
                    nxt.append(c)
            best = max((norm(*f) for f in finished[b]), default=float("-inf"))
            live = [] if len(finished[b]) >= K else [(c[0], c[1], c[2]) for c in nxt if c[1] / (max_lens[b] ** alpha) > best]
            if live and t + 1 >= max_lens[b]:
                if not finished[b]:  # out of steps: the live ones compete
                    finished[b] = [(h[0], h[1]) for h in live]
                live = []
            new_alive[b] = live
        keep = [h for b in range(B) for h in new_alive[b]]
        if keep:
            state = o["next_state"][torch.tensor([h[2] for h in keep])]
            k = 0
            for b in range(B):
                new_alive[b] = [(h[0], h[1], k + i) for i, h in enumerate(new_alive[b])]
                k += len(new_alive[b])
        alive = new_alive
        t += 1
    out = []
    for b in range(B):
        pool = sorted(finished[b], key=lambda f: -norm(*f))
        toks = pool[0][0] if pool else []
        out.append([x for x in toks if x != eos])
    return out


def replace_unknowns(tgt_tokens, attention, src_tokens, src_spec, unk="<unk>", eos_last=True):
    """Luong et al. (2015)'s unknown-word replacement, the rule the app shares:

    For each output step t whose token is `<unk>` (greedy and beam never emit it; a forced target
    can contain it): j* = argmax_j attention[t][j] over the source positions except the final
    `</s>` (the first j on ties). The source word containing position j* (its pieces joined: a
    piece ending in the joiner "@@" belongs with the next one; the joiner removed) replaces
    `<unk>` in the output and is written as a whole word. If that source word is itself `<unk>`
    (a piece the source vocabulary lacks), the original text of that piece is used when known
    (`src_tokens` are the tokenizer's pieces before the vocabulary lookup, so they carry it).
    Models without attention (`none`) have no attention rows: `<unk>` is then dropped.
    Returns (tokens, replaced) where replaced lists (t, j*, weight, word)."""
    from .tokenizer import word_spans
    out, replaced = [], []
    spans = word_spans(src_tokens, src_spec)
    joiner = src_spec.get("joiner") or ""
    for t, tok in enumerate(tgt_tokens):
        if tok != unk:
            out.append(tok)
            continue
        if attention is None or t >= len(attention):
            continue
        row = list(attention[t])[: len(src_tokens)]
        if not row:
            continue
        j = max(range(len(row)), key=lambda i: (row[i], -i))
        span = next(s for s in spans if j in s)
        word = "".join(src_tokens[i][: -len(joiner)] if joiner and src_tokens[i].endswith(joiner) else src_tokens[i] for i in span)
        if src_spec["type"] == "char":
            word = src_tokens[j]
        out.append(word)
        replaced.append((t, j, row[j], word))
    return out, replaced
