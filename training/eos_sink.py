"""Why attention sinks into the source `</s>` (issue 26): measured on a bundled file's greedy
decoding of the first N test sentences, teacher-free as the app shows it.

    /usr/bin/python3 training/eos_sink.py resources/models/en-fr-bahdanau.onnx [--limit 200]

Prints, for the steps before the last:
- `eos_mass`: mean weight on `</s>`; `eos_top`: share of steps whose largest weight is `</s>`;
- `bwd_spread`: the largest difference, over sentences, between the backward halves of the
  `</s>` encoder states (0: the backward GRU has read only `</s>` there, the same vector in every
  sentence), and `fwd_spread` the same for the forward halves (the sentence summaries);
- `eos_top_mean_query`: the share of steps whose `</s>` score still ranks first when every
  step's query is replaced by the mean query over all steps (the part of the preference that
  does not depend on what the decoder is doing); `word_top_mean_query` the same for the word the
  real query ranks first.
"""
import argparse
import json

import torch
import torch.nn.functional as F

from attention_stats import test_sources
from bench_torch import load
from attention_lens import data
from attention_lens.models import mask_unk


def score(model, q, K):
    """Additive score of queries q [B,d] against keys K [B,S,d]."""
    v = model.v_a if model.kind == "bahdanau" else model.v_cat
    return v(torch.tanh(q.unsqueeze(1) + K)).squeeze(2)


@torch.no_grad()
def decode(model, src, mask):
    """Greedy decoding (as models.greedy) that also returns each step's query term."""
    H, state = model.encode(src, mask)
    K = model.keys(H)
    B, S = src.shape
    prev = torch.full((B,), 2, dtype=torch.long)
    done = torch.zeros(B, dtype=torch.bool)
    length = [0] * B
    out = []
    for t in range(2 * S + 10):
        o = model.step(prev, state, H, mask, torch.full((B,), float(t)), torch.zeros(B, S), torch.zeros(B, 1), K=K)
        if model.kind == "bahdanau":
            q = model.W_a(state)
        else:
            q = F.linear(o["next_state"][:, : model.dec_dim], model.W_cat.weight[:, : model.dec_dim])
        out.append((o["attention"], q))
        state = o["next_state"]
        prev = mask_unk(o["logits"]).argmax(1)
        for b in range(B):
            if not done[b]:
                length[b] = t + 1
                done[b] = bool(prev[b] == 3)
        if bool(done.all()):
            break
    return H, K, out, length


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--limit", type=int, default=200)
    ap.add_argument("--pair", default="en-fr")
    a = ap.parse_args()
    torch.set_num_threads(1)
    model, (spec, index) = load(a.model)
    assert model.kind in ("bahdanau", "luong-concat"), "additive scores only"
    half = model.mem // 2
    eos_w, eos_top, bwd, fwd, rows = [], [], [], [], []
    for _, enc, src, mask in data.source_batches(test_sources(a.pair, a.limit), spec, index):
        H, K, steps, length = decode(model, src, mask)
        for b, e in enumerate(enc):
            n = len(e)
            bwd.append(H[b, n - 1, half:])
            fwd.append(H[b, n - 1, :half])
            for t in range(length[b] - 1):  # the steps before the last
                w, q = steps[t][0][b, :n], steps[t][1][b]
                eos_w.append(w[n - 1].item())
                eos_top.append(int(w.argmax().item() == n - 1))
                rows.append((K[b, :n], q, int(w.argmax().item())))
    qbar = torch.stack([q for _, q, _ in rows]).mean(0)
    same_eos, same_word, n_eos, n_word = 0, 0, 0, 0
    with torch.no_grad():
        for Kb, _, top in rows:
            mq_top = int(score(model, qbar.unsqueeze(0), Kb.unsqueeze(0))[0].argmax().item())
            if top == Kb.shape[0] - 1:
                n_eos += 1
                same_eos += int(mq_top == top)
            else:
                n_word += 1
                same_word += int(mq_top == top)
    print(json.dumps({"model": a.model, "steps": len(eos_w), "eos_mass": round(sum(eos_w) / len(eos_w), 4),
                      "eos_top": round(sum(eos_top) / len(eos_top), 4),
                      "bwd_spread": round(torch.stack(bwd).sub(bwd[0]).abs().max().item(), 6),
                      "fwd_spread": round(torch.stack(fwd).sub(fwd[0]).abs().max().item(), 4),
                      "eos_top_mean_query": round(same_eos / max(1, n_eos), 4),
                      "word_top_mean_query": round(same_word / max(1, n_word), 4)}))


if __name__ == "__main__":
    main()
