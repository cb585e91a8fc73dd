"""Independent reference for the contribution methods on Hugging Face folders (issue 41).

Run from the repository root with the transformers venv (CI never runs this; the tests read its output):

    python3.11 -m venv /tmp/hfvenv && /tmp/hfvenv/bin/pip install transformers torch tokenizers sentencepiece onnx onnxruntime
    for m in marian-dynamo:6 bart:1 t5:2 m2m100:3; do
      /tmp/hfvenv/bin/python training/contributions_reference_hf.py --folder test/fixtures/hf/${m%:*} --seed ${m#*:} \
          --n 5 --out test/fixtures/contributions/hf-${m%:*}.json.gz
    done

The folders keep no PyTorch weights (hf_test_models.py deletes the safetensors), so the model is
made again as hf_test_models.py made it: transformers' class from the folder's config.json after
torch.manual_seed(seed) (marian-dynamo 6, bart 1, t5 2, m2m100 3; the trained marian folders cannot
be remade this way). That these are the folder's weights is checked before anything is written:
onnxruntime's encoder_model.onnx and PyTorch's encoder must agree within 1e-4 on every sentence.

Each sentence is the folder's reference.json input ids and PyTorch's greedy ids there (with `</s>`
added where generation stopped at its length limit), run teacher-forced once with eager attention
and output_attentions=True; forward hooks on the transformers modules give every attention block's
input x, its values' source u and its output. Nothing here reads the ONNX graphs' structure.

One attention block, heads h (W_V^h rows, W_O^h columns of the head), keys j:

    z_i = x_i + sum_h W_O^h sum_j a^h_ij (W_V^h u_j + b_V^h) + b_O

- pre-norm (T5, M2M100): the block's output is z_i and u_j = LN(x_j) = L_j(x_j) + beta (T5's
  RMSNorm: beta = 0; a cross-attention reads the encoder's output, its final norm's beta taken out
  too). Each contributor's vector: T_i(j) = sum_h a^h_ij W_O^h W_V^h (u_j - beta), plus x_i for
  the residual (Ferrando et al. 2022).
- post-norm (Marian, BART): the block's output is y_i = LN(z_i) and u_j is the block's input as it
  is (or the encoder's output). LN is linear in each contributor once z_i's deviation is fixed
  (Kobayashi et al. 2021): T_i(j) = gamma * (t_ij - mean(t_ij)) / sqrt(var(z_i) + eps) with t_ij
  the pre-norm contributor above; the biases and beta belong to no token.
- ALTI: c_ij = max(0, ||y_i||_1 - ||y_i - T_i(j)||_1), each row divided by its sum; the cross-
  attention's residual is one more column after the source. Value norms, ALTI+ and rollout as in
  contributions_reference.py (its `combine`, `alti_rows` and `rnd` are used here).
- Variant `no_residual`: the residual left out of every block (y_i less the residual's T).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
from pathlib import Path

import numpy as np
import torch

D = torch.float64

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# The layers' combination and the rounding are the bundled models' reference's, the same equations.
from contributions_reference import combine, rnd  # noqa: E402


def alti_rows(y, T):
    """c_ij = max(0, ||y_i||_1 - ||y_i - T_ij||_1), rows divided by their sums. y [Nq, d], T [Nq, K, d]."""
    c = torch.clamp(y.abs().sum(-1, keepdim=True) - (y.unsqueeze(1) - T).abs().sum(-1), min=0)
    s = c.sum(-1, keepdim=True)
    return torch.where(s > 0, c / torch.where(s > 0, s, torch.ones_like(s)), torch.zeros_like(c))




class Block:
    """One attention module's weights as float64: W_V, b_V, W_O [out, in] and the number of heads."""

    def __init__(self, attn, heads):
        v, o = (attn.v_proj, attn.out_proj) if hasattr(attn, "v_proj") else (attn.v, attn.o)
        self.Wv, self.Wo = v.weight.detach().to(D), o.weight.detach().to(D)
        self.bv = v.bias.detach().to(D) if v.bias is not None else torch.zeros(self.Wv.shape[0], dtype=D)
        self.heads = heads

    def per_head(self, u, with_bias):
        """[H, N, d]: W_O^h (W_V^h u_j (+ b_V^h)) for every row u_j."""
        dh = self.Wv.shape[0] // self.heads
        V = u.to(D) @ self.Wv.T + (self.bv if with_bias else 0)
        return torch.stack([V[:, h * dh:(h + 1) * dh] @ self.Wo[:, h * dh:(h + 1) * dh].T for h in range(self.heads)])


def alti(block, a, x, u, y, beta, post, cross, residual=True):
    """ALTI of one block: a [H, Nq, Nk], x [Nq, d] its residual, u [Nk, d] the values' source, y its output.
    post: (z, ln) for a post-norm block, else None."""
    x, y = x.to(D), y.to(D)
    vals = block.per_head(u.to(D) - beta, False)  # [H, Nk, d]
    t = torch.einsum("hij,hjd->ijd", a.to(D), vals)  # [Nq, Nk, d]
    res = x

    if post is not None:
        z, ln = post
        z = z.to(D)
        sigma = torch.sqrt(z.var(-1, unbiased=False, keepdim=True) + ln.eps)  # [Nq, 1]
        g = ln.weight.detach().to(D)

        def lin(v, s):
            return g * (v - v.mean(-1, keepdim=True)) / s

        t = lin(t, sigma.unsqueeze(1))
        res = lin(x, sigma)
    if not residual:
        y = y - res
        res = torch.zeros_like(res)
    if cross:
        T = torch.cat([t, res.unsqueeze(1)], 1)
    else:
        T = t + torch.eye(x.shape[0], dtype=D).unsqueeze(-1) * res.unsqueeze(0)
    return alti_rows(y, T)


def hooks(model):
    """Forward hooks on every attention block: returns (seen, handles, blocks) where blocks[k] names the
    entries of `seen` that block's x, u, y, z and its modules."""
    seen, handles, blocks = {}, [], []

    def first(args, kwargs):
        return args[0] if args else kwargs["hidden_states"]

    def pre(key):
        def h(mod, args, kwargs):
            seen[key] = first(args, kwargs)[0].detach().clone()
        return h

    def out(key):
        def h(mod, args, kwargs, o):
            seen[key] = (o[0] if isinstance(o, tuple) else o)[0].detach().clone()
        return h

    def on(mod, key, after=False):
        handles.append(mod.register_forward_hook(out(key), with_kwargs=True) if after else mod.register_forward_pre_hook(pre(key), with_kwargs=True))

    mt = model.config.model_type
    if mt == "t5":
        for part, stack in (("enc", model.encoder.block), ("dec", model.decoder.block)):
            for i, blk in enumerate(stack):
                for k, sub in enumerate(blk.layer[:2] if part == "dec" else blk.layer[:1]):
                    key = f"{part}{i}.{k}"
                    on(sub, key + ".x")
                    on(sub.layer_norm, key + ".u", after=True)
                    on(sub, key + ".y", after=True)
                    attn = sub.SelfAttention if k == 0 else sub.EncDecAttention
                    blocks.append((key, attn, None, "pre"))
        return seen, handles, blocks
    post = mt in ("marian", "bart")
    for part, stack in (("enc", model.model.encoder.layers), ("dec", model.model.decoder.layers)):
        for i, layer in enumerate(stack):
            subs = [(layer.self_attn, layer.self_attn_layer_norm)]
            if part == "dec":
                subs.append((layer.encoder_attn, layer.encoder_attn_layer_norm))
            nexts = [layer.encoder_attn_layer_norm, layer.final_layer_norm] if part == "dec" else [layer.final_layer_norm]
            for k, (attn, ln) in enumerate(subs):
                key = f"{part}{i}.{k}"
                if post:  # x -> attention -> z = x + ... -> ln -> y
                    on(attn, key + ".x")
                    on(ln, key + ".z")
                    on(ln, key + ".y", after=True)
                    blocks.append((key, attn, ln, "post"))
                else:  # x -> ln -> u -> attention; y = x + ... is the next norm's input
                    on(ln, key + ".x")
                    on(ln, key + ".u", after=True)
                    on(nexts[k], key + ".y")
                    blocks.append((key, attn, ln, "pre"))
    return seen, handles, blocks


@torch.no_grad()
def reference(model, src_ids, tgt_ids, start):
    """Every method for one sentence: source ids and output ids (with </s>)."""
    cfg = model.config
    heads = cfg.num_heads if cfg.model_type == "t5" else cfg.decoder_attention_heads
    seen, handles, blocks = hooks(model)
    src = torch.tensor([src_ids])
    dec_in = torch.tensor([[start] + tgt_ids[:-1]])
    try:
        o = model(input_ids=src, attention_mask=torch.ones_like(src), decoder_input_ids=dec_in, output_attentions=True, return_dict=True)
    finally:
        for h in handles:
            h.remove()
    hidden = o.encoder_last_hidden_state[0]
    enc_norm = getattr(model.model.encoder, "layer_norm", None) if cfg.model_type == "m2m_100" else None
    enc_beta = enc_norm.bias.detach().to(D) if enc_norm is not None else torch.zeros(hidden.shape[-1], dtype=D)
    Tn = len(tgt_ids)
    res = {"enc": [], "self": [], "cross": []}
    nores = {"enc": [], "self": [], "cross": []}
    norms, totals = [], []
    share_num, share_den = torch.zeros(Tn, dtype=D), torch.zeros(Tn, dtype=D)
    rolls = {"enc": [], "self": [], "cross": []}
    for key, attn, ln, kind in blocks:
        part, i, k = key[:3], int(key[3:].split(".")[0]), int(key.split(".")[1])
        cross = part == "dec" and k == 1
        a = (o.encoder_attentions if part == "enc" else o.cross_attentions if cross else o.decoder_attentions)[i][0]
        x = seen[key + ".x"]
        y = seen[key + ".y"]
        if cross:
            u, beta = hidden, (enc_beta if kind == "pre" else torch.zeros_like(enc_beta))
        elif kind == "pre":
            u = seen[key + ".u"]
            beta = ln.bias.detach().to(D) if ln is not None and getattr(ln, "bias", None) is not None else torch.zeros(u.shape[-1], dtype=D)
        else:
            u, beta = x, torch.zeros(x.shape[-1], dtype=D)
        post = (seen[key + ".z"], ln) if kind == "post" else None
        blk = Block(attn, heads)
        which = "enc" if part == "enc" else "cross" if cross else "self"
        res[which].append(alti(blk, a, x, u, y, beta, post, cross))
        nores[which].append(alti(blk, a, x, u, y, beta, post, cross, residual=False))
        if cross:
            rolls[which].append(torch.cat([0.5 * a.to(D).mean(0), torch.full((Tn, 1), 0.5, dtype=D)], 1))
            f = blk.per_head(hidden, True)  # [H, S, d]: Kobayashi et al.'s f^h(h_j)
            v = a.to(D).unsqueeze(-1) * f.unsqueeze(1)  # [H, T, S, d]
            norms.append([rnd(p) for p in v.norm(dim=-1)])
            total = v.sum(0)
            totals.append(rnd(total.norm(dim=-1)))
            share_num += total.sum(1).norm(dim=-1)
            share_den += total.sum(1).norm(dim=-1) + x.to(D).norm(dim=-1)
        else:
            n = a.shape[-1]
            rolls[which].append(0.5 * a.to(D).mean(0) + 0.5 * torch.eye(n, dtype=D))
    src_m, tgt_m = combine(res["enc"], res["self"], res["cross"])
    r_src, r_tgt = combine(rolls["enc"], rolls["self"], rolls["cross"])
    nr_src, nr_tgt = combine(nores["enc"], nores["self"], nores["cross"])
    return {
        "encoder": {"alti": [rnd(c) for c in res["enc"]]},
        "decoder": {"self_alti": [rnd(c) for c in res["self"]], "cross_alti": [rnd(c) for c in res["cross"]],
                    "cross_norms": norms, "cross_norm_total": totals},
        "alti_plus": {"source": rnd(src_m), "target": rnd(tgt_m), "sourceShare": [round(float(v), 7) for v in src_m.sum(1)]},
        "rollout": {"source": rnd(r_src), "target": rnd(r_tgt), "sourceShare": [round(float(v), 7) for v in r_src.sum(1)]},
        "norm_source_share": [round(float(v), 7) for v in share_num / share_den],
        "no_residual": {"encoder_alti": [rnd(c) for c in nores["enc"]], "cross_alti": [rnd(c) for c in nores["cross"]],
                        "alti_plus_source": rnd(nr_src), "alti_plus_target": rnd(nr_tgt)},
    }


def onnx_encoder_check(folder: Path, model, ids) -> float:
    """Max |onnxruntime - PyTorch| of the encoder output: the weights remade from the seed are the folder's."""
    import onnxruntime as ort

    files = [folder / "encoder_model.onnx", folder / "onnx" / "encoder_model.onnx"]
    s = ort.InferenceSession(str(next(f for f in files if f.exists())), providers=["CPUExecutionProvider"])
    x = np.array([ids], dtype=np.int64)
    got = s.run(None, {"input_ids": x, "attention_mask": np.ones_like(x)})[0]
    with torch.no_grad():
        want = model.get_encoder()(input_ids=torch.tensor(x), attention_mask=torch.ones(x.shape, dtype=torch.long)).last_hidden_state.numpy()
    return float(np.abs(got - want).max())


def seeded_model(folder: Path, seed: int):
    """The test folder's transformers model remade from hf_test_models.py's seed, with eager attention (the hooks read its weights)."""
    from transformers import AutoConfig, AutoModelForSeq2SeqLM

    cfg = AutoConfig.from_pretrained(folder)
    cfg._attn_implementation = "eager"
    torch.manual_seed(seed)
    return cfg, AutoModelForSeq2SeqLM.from_config(cfg, attn_implementation="eager").eval()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--folder", required=True)
    p.add_argument("--seed", type=int, required=True, help="hf_test_models.py's torch.manual_seed for this folder")
    p.add_argument("--n", type=int, default=5)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    torch.set_num_threads(1)
    folder = Path(a.folder)
    cfg, model = seeded_model(folder, a.seed)
    ref = json.loads((folder / "reference.json").read_text(encoding="utf-8"))
    start = ref["start"]
    eos = cfg.eos_token_id
    cases = []
    for s in ref["sentences"][: a.n]:
        ids = s["input_ids"]
        drift = onnx_encoder_check(folder, model, ids)
        if drift > 1e-4:
            raise SystemExit(f"{folder}: the model remade with seed {a.seed} is not the folder's (encoder differs by {drift:.2e})")
        tgt = list(s["greedy"])
        if tgt[-1] != eos:
            tgt.append(eos)
        case = {"source": s["text"], "src_ids": ids, "tgt_ids": tgt, "greedy": s["greedy"], "encoder_check": drift}
        case.update(reference(model, ids, tgt, start))
        cases.append(case)
        print(f"{len(cases)}/{a.n} S={len(ids)} T={len(tgt)} encoder |ort - torch| {drift:.1e} "
              f"ALTI+ share {sum(case['alti_plus']['sourceShare']) / len(tgt):.3f}", flush=True)
    out = {"folder": folder.name, "seed": a.seed, "model_type": cfg.model_type, "start": start, "cases": cases}
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    with gzip.open(a.out, "wt", encoding="utf-8") as f:
        json.dump(out, f, separators=(",", ":"))
    print(f"wrote {a.out} ({os.path.getsize(a.out) / 1e3:.0f} kB)")


if __name__ == "__main__":
    sys.exit(main())
