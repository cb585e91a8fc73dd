"""Independent reference for the app's contribution methods (issue 41) on the bundled Transformers.

Run from the repository root with Debian's /usr/bin/python3 (torch, onnx):

    F=test/fixtures/contributions
    /usr/bin/python3 training/contributions_reference.py --model resources/models/en-fr-transformer.onnx \
        --src resources/testsets/en-fr.en --n 20 --out $F/en-fr-transformer.json.gz
    (the same for en-fr-transformer-guided; zh-en-transformer with --src resources/testsets/zh-en.zh
    --src-ids $F/zh-en-transformer.src-ids.jsonl, the app's jieba pieces, as Debian's Python has no jieba)

The model is rebuilt in PyTorch from the file's own initializers (transformer.load_from_onnx, the
training code's modules), each sentence is decoded greedily (transformer.greedy), and the
teacher-forced pass over that output (Transformer.forward) runs with forward hooks on every layer
norm: a pre-norm layer's LayerNorm inputs are the residual stream before each sub-layer, so the
hooks give each attention block's input x and output y. The attention weights come from the
modules' own `weights` (the encoder's and the decoder's self-attention) and from the forward
pass's `cross_attention`. Everything below follows the papers' equations, not the app's
TypeScript (src/engine/contributions), which must agree with it to 1e-4.

Pre-norm attention block (one head h of H, dh = d/H, W_V^h the rows of W_V, W_O^h the columns of
W_O that belong to head h):

    y_i = x_i + sum_h W_O^h sum_j a^h_ij (W_V^h LN(z_j) + b_V^h) + b_O

with z_j the vectors the values are read from (self-attention: the block's input x_j; cross-
attention: the encoder's last residual stream e_j, read through the encoder's final norm).
LN(z) = L_j(z) + beta, L_j(z) = gamma * (z - mean(z)) / sqrt(var(z) + eps) is linear in z once
token j's deviation is fixed (Ferrando et al. 2022: "the layer norm's linear part").

- Value-weighted norms (Kobayashi et al. 2020), cross-attention: per head
  ||a^h_tj W_O^h (W_V^h H_j + b_V^h)||_2 with H_j the encoder output the values are computed from,
  and per layer the norm of the sum over heads.
- ALTI (Ferrando, Gállego and Costa-jussà 2022): the transformed vectors
  T_i(z_j) = sum_h a^h_ij W_O^h W_V^h L_j(z_j)  (+ x_i where j is i itself: the residual),
  c_ij = max(0, ||y_i||_1 - ||y_i - T_i(z_j)||_1), each row divided by its sum. In the cross-
  attention the residual (the block's input x_t) is one more column after the S source columns.
- ALTI+ (Ferrando et al. 2022, "Towards Opening the Black Box of NMT"): encoder layers combined
  by rollout (R_enc = C_L ... C_1); each decoder layer as a matrix over [S source | T target]
  tokens, source rows the identity, target row t = [cross_t,src ; cross_t,res * self_t,:];
  R = M_L ... M_1 [[R_enc, 0], [0, I]]. Row t: its source contributions (the `matrix`) and its
  target-prefix contributions; together they sum to 1. The source share is the first part's sum.
- Rollout (Abnar and Zuidema 2020): the same combination with each attention's head mean A and
  the residual as 0.5 A + 0.5 I (the cross-attention's row: 0.5 A over the source, 0.5 on the residual).

Decoder position t reads target token t-1 (`<s>` at t = 0) and predicts token t; the target-prefix
columns are those inputs. Row T-1 predicts `</s>`.

Variant `no_residual`: the same ALTI with the residual left out of every block (T_i(x_i) without
x_i, y_i without it). The app's tests compute it too and check that the full method differs from it.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attention_lens import data  # noqa: E402
from attention_lens import transformer as tf  # noqa: E402
from attention_lens.tokenizer import tokenize  # noqa: E402

D = torch.float64


def ln_linear(z, ln):
    """The layer norm's linear part for each row of z [N, d]: gamma * (z - mean) / sqrt(var + eps)."""
    z = z.to(D)
    mu = z.mean(-1, keepdim=True)
    var = ((z - mu) ** 2).mean(-1, keepdim=True)
    return ln.weight.to(D) * (z - mu) / torch.sqrt(var + ln.eps)


def head_maps(attn, heads):
    """Per head h: W_O^h W_V^h [d, d] (acting on column vectors) as a list."""
    d = attn.v.weight.shape[0]
    dh = d // heads
    Wv, Wo = attn.v.weight.to(D), attn.o.weight.to(D)
    return [Wo[:, h * dh:(h + 1) * dh] @ Wv[h * dh:(h + 1) * dh, :] for h in range(heads)]


def transformed(a, maps, zl):
    """T[i, j] = sum_h a[h, i, j] W_O^h W_V^h zl_j: [Nq, Nk, d] (no residual)."""
    # per head: values through W_O^h W_V^h: [Nk, d]
    out = 0
    for h, M in enumerate(maps):
        v = zl @ M.T  # [Nk, d]
        out = out + a[h].to(D).unsqueeze(-1) * v.unsqueeze(0)
    return out


def alti_rows(y, T):
    """ALTI: c_ij = max(0, ||y_i||_1 - ||y_i - T_ij||_1), rows divided by their sums. y [Nq, d], T [Nq, K, d]."""
    c = torch.clamp(y.abs().sum(-1, keepdim=True) - (y.unsqueeze(1) - T).abs().sum(-1), min=0)
    s = c.sum(-1, keepdim=True)
    return torch.where(s > 0, c / torch.where(s > 0, s, torch.ones_like(s)), torch.zeros_like(c))


def self_alti(x, y, a, ln, attn, heads, residual=True):
    """ALTI of a self-attention block: x, y [N, d] its input and output, a [H, N, N] -> [N, N]."""
    T = transformed(a, head_maps(attn, heads), ln_linear(x, ln))
    y = y.to(D)
    if residual:
        n = x.shape[0]
        T = T + torch.eye(n, dtype=D).unsqueeze(-1) * x.to(D).unsqueeze(0)
    else:
        y = y - x.to(D)
    return alti_rows(y, T)


def cross_alti(x, y, a, e, enc_norm, attn, heads, residual=True):
    """ALTI of a cross-attention block: x, y [T, d], a [H, T, S], e [S, d] the encoder's last
    residual stream -> [T, S + 1], the last column the residual."""
    T = transformed(a, head_maps(attn, heads), ln_linear(e, enc_norm))  # [T, S, d]
    y = y.to(D)
    if residual:
        T = torch.cat([T, x.to(D).unsqueeze(1)], 1)
    else:
        T = torch.cat([T, torch.zeros_like(x, dtype=D).unsqueeze(1)], 1)
        y = y - x.to(D)
    return alti_rows(y, T)


def combine(enc_layers, dec_self, dec_cross):
    """ALTI+ / rollout: encoder matrices [S,S] by rollout, then each decoder layer over [S | T]."""
    S = enc_layers[0].shape[0]
    Tn = dec_self[0].shape[0]
    R_enc = torch.eye(S, dtype=D)
    for C in enc_layers:
        R_enc = C @ R_enc
    R = torch.zeros(S + Tn, S + Tn, dtype=D)
    R[:S, :S] = R_enc
    R[S:, S:] = torch.eye(Tn, dtype=D)
    for C_sa, C_ca in zip(dec_self, dec_cross):
        M = torch.eye(S + Tn, dtype=D)
        M[S:, :S] = C_ca[:, :S]
        M[S:, S:] = C_ca[:, S:S + 1] * C_sa
        R = M @ R
    return R[S:, :S], R[S:, S:]


def rnd(t, k=6):
    return [[round(float(v), k) for v in row] for row in t.tolist()] if t.dim() == 2 else [rnd(s, k) for s in t]


@torch.no_grad()
def reference(model, src_ids, tgt_ids):
    """Every method for one sentence: source ids (with </s>) and output ids (without </s>)."""
    H_ = model.heads
    src = torch.tensor([src_ids])
    mask = torch.ones(1, len(src_ids))
    tgt_in = torch.tensor([[2] + tgt_ids])
    seen = {}

    def keep(name):
        def hook(mod, inp, out):
            seen[name] = (inp[0][0].detach().clone(), out[0].detach().clone())
        return hook

    handles = []
    for i, layer in enumerate(model.enc):
        handles += [layer.ln1.register_forward_hook(keep(f"enc{i}.ln1")), layer.ln2.register_forward_hook(keep(f"enc{i}.ln2"))]
    for i, layer in enumerate(model.dec):
        for n in ("ln1", "ln2", "ln3"):
            handles.append(getattr(layer, n).register_forward_hook(keep(f"dec{i}.{n}")))
    handles.append(model.enc_norm.register_forward_hook(keep("enc_norm")))
    try:
        model(src, mask, tgt_in)
    finally:
        for h in handles:
            h.remove()
    S, Tn = len(src_ids), tgt_in.shape[1]
    allowed = torch.ones(1, 1, 1, S, dtype=torch.bool)
    causal = torch.tril(torch.ones(Tn, Tn, dtype=torch.bool)).unsqueeze(0).unsqueeze(0)
    e = seen["enc_norm"][0]
    Henc = seen["enc_norm"][1]  # mask is all ones
    out = {"encoder": {"alti": [], "weights": []}, "decoder": {"self_alti": [], "cross_alti": [], "cross_norms": [], "cross_norm_total": []}}
    variants = {"no_residual": {"encoder": [], "self": [], "cross": []}}
    enc_alti, enc_roll = [], []
    for i, layer in enumerate(model.enc):
        x, ln_out = seen[f"enc{i}.ln1"]
        y = seen[f"enc{i}.ln2"][0]
        a = layer.attn.weights(ln_out.unsqueeze(0), layer.attn.k(ln_out.unsqueeze(0)), allowed)[0]  # [H,S,S]
        C = self_alti(x, y, a, layer.ln1, layer.attn, H_)
        enc_alti.append(C)
        variants["no_residual"]["encoder"].append(self_alti(x, y, a, layer.ln1, layer.attn, H_, residual=False))
        enc_roll.append(0.5 * a.to(D).mean(0) + 0.5 * torch.eye(S, dtype=D))
        out["encoder"]["alti"].append(rnd(C))
    dec_self, dec_cross, roll_self, roll_cross = [], [], [], []
    share_num = torch.zeros(Tn, dtype=D)
    share_den = torch.zeros(Tn, dtype=D)
    for i, layer in enumerate(model.dec):
        x1, ln1_out = seen[f"dec{i}.ln1"]
        x2 = seen[f"dec{i}.ln2"][0]
        x3 = seen[f"dec{i}.ln3"][0]
        sa, ca = layer.self_attn, layer.cross
        a_sa = sa.weights(ln1_out.unsqueeze(0), sa.k(ln1_out.unsqueeze(0)), causal)[0]  # [H,T,T]
        a_ca = model.cross_attention[i][0]  # [H,T,S]
        C_sa = self_alti(x1, x2, a_sa, layer.ln1, sa, H_)
        C_ca = cross_alti(x2, x3, a_ca, e, model.enc_norm, ca, H_)
        dec_self.append(C_sa)
        dec_cross.append(C_ca)
        variants["no_residual"]["self"].append(self_alti(x1, x2, a_sa, layer.ln1, sa, H_, residual=False))
        variants["no_residual"]["cross"].append(cross_alti(x2, x3, a_ca, e, model.enc_norm, ca, H_, residual=False))
        out["decoder"]["self_alti"].append(rnd(C_sa))
        out["decoder"]["cross_alti"].append(rnd(C_ca))
        roll_self.append(0.5 * a_sa.to(D).mean(0) + 0.5 * torch.eye(Tn, dtype=D))
        roll_cross.append(torch.cat([0.5 * a_ca.to(D).mean(0), torch.full((Tn, 1), 0.5, dtype=D)], 1))
        # Kobayashi et al.: f^h(H_j) = W_O^h (W_V^h H_j + b_V^h), each head weighted by its a.
        d = ca.v.weight.shape[0]
        dh = d // H_
        Vv = Henc.to(D) @ ca.v.weight.to(D).T + ca.v.bias.to(D)  # [S, d]
        per_head, total = [], 0
        for h in range(H_):
            f = Vv[:, h * dh:(h + 1) * dh] @ ca.o.weight.to(D)[:, h * dh:(h + 1) * dh].T  # [S, d]
            v = a_ca[h].to(D).unsqueeze(-1) * f.unsqueeze(0)  # [T, S, d]
            per_head.append(v.norm(dim=-1))
            total = total + v
        out["decoder"]["cross_norms"].append([rnd(p) for p in per_head])
        tn = total.norm(dim=-1)
        out["decoder"]["cross_norm_total"].append(rnd(tn))
        # the attention's whole output (without b_O) against the residual it is added to
        share_num += total.sum(1).norm(dim=-1)
        share_den += total.sum(1).norm(dim=-1) + x2.to(D).norm(dim=-1)
    src_m, tgt_m = combine(enc_alti, dec_self, dec_cross)
    out["alti_plus"] = {"source": rnd(src_m), "target": rnd(tgt_m), "sourceShare": [round(float(v), 7) for v in src_m.sum(1)]}
    r_src, r_tgt = combine(enc_roll, roll_self, roll_cross)
    out["rollout"] = {"source": rnd(r_src), "target": rnd(r_tgt), "sourceShare": [round(float(v), 7) for v in r_src.sum(1)]}
    out["norm_source_share"] = [round(float(v), 7) for v in share_num / share_den]
    nr = variants["no_residual"]
    nr_src, nr_tgt = combine(nr["encoder"], nr["self"], nr["cross"])
    out["no_residual"] = {"encoder_alti": [rnd(c) for c in nr["encoder"]], "cross_alti": [rnd(c) for c in nr["cross"]],
                          "alti_plus_source": rnd(nr_src), "alti_plus_target": rnd(nr_tgt)}
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", required=True)
    p.add_argument("--src", required=True, help="one sentence a line")
    p.add_argument("--n", type=int, default=20)
    p.add_argument("--src-ids", help="the sources' ids instead, one JSON list a line with </s> last (from the app's tokenizer, "
                   "for a tokenizer this Python lacks: jieba for zh)")
    p.add_argument("--out", required=True, help="a .json or .json.gz file")
    a = p.parse_args()
    torch.set_num_threads(1)
    model, meta = tf.load_from_onnx(a.model)
    src_vocab = json.loads(meta["al.src_vocab"])
    tgt_vocab = json.loads(meta["al.tgt_vocab"])
    spec = json.loads(meta["al.src_tokenizer"])
    si = {w: i for i, w in enumerate(src_vocab)}
    with open(a.src, encoding="utf-8") as f:
        sentences = [line.rstrip("\n") for line in f][: a.n]
    given = None
    if a.src_ids:
        with open(a.src_ids, encoding="utf-8") as f:
            given = [json.loads(line) for line in f][: a.n]
    cases = []
    for k, s in enumerate(sentences):
        ids = given[k] if given else data.encode(s, spec, si, 100)
        src = torch.tensor([ids])
        out, _ = tf.greedy(model, src, torch.ones(1, len(ids)), max_len=2 * len(ids) + 10)
        tgt = out[0]
        src_tokens = [src_vocab[i] for i in ids] if given else tokenize(s, spec) + ["</s>"]
        case = {"source": s, "src_tokens": src_tokens, "src_ids": ids, "tgt_ids": tgt,
                "tgt_tokens": [tgt_vocab[i] for i in tgt] + ["</s>"]}
        case.update(reference(model, ids, tgt))
        cases.append(case)
        print(f"{len(cases)}/{len(sentences)} S={len(ids)} T={len(tgt) + 1} share={sum(case['alti_plus']['sourceShare']) / (len(tgt) + 1):.3f}",
              flush=True)
    meta_out = {"model": os.path.basename(a.model), "heads": model.heads, "enc_layers": model.enc_layers_n,
                "dec_layers": model.dec_layers_n, "eps": model.enc_norm.eps, "cases": cases}
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    with (gzip.open(a.out, "wt", encoding="utf-8") if a.out.endswith(".gz") else open(a.out, "w", encoding="utf-8")) as f:
        json.dump(meta_out, f, ensure_ascii=False, separators=(",", ":"))
    print(f"wrote {a.out} ({os.path.getsize(a.out) / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
