"""PyTorch eager side of `npm run bench`: the same weights (read back from the ONNX file's
initializers, which keep their PyTorch names) and the same sentences as the onnxruntime side.

    /usr/bin/python3 training/bench_torch.py MODEL.onnx SENTENCES.json  -> JSON on stdout
"""
import json
import os
import statistics
import sys
import time

import onnx
import torch
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data  # noqa: E402
from models import Seq2Seq, greedy  # noqa: E402


def load(path):
    m = onnx.load(path)
    meta = {p.key: p.value for p in m.metadata_props}
    sizes = json.loads(meta["al.model_card"])["sizes"]
    model = Seq2Seq(meta["al.attention"], sizes["src_vocab"], sizes["tgt_vocab"], sizes["emb"], sizes["enc_hidden"],
                    sizes["dec_hidden"], int(meta.get("al.window_d", "4") or 4), float(meta.get("al.local_m_ratio", "1.0")))
    weights = {i.name[len("model."):]: torch.from_numpy(numpy_helper.to_array(i).copy())
               for i in m.graph.initializer if i.name.startswith("model.")}
    model.load_state_dict(weights)
    model.eval()
    return model, meta


def encode(meta, text):
    vocab = json.loads(meta["al.src_vocab"])
    spec = json.loads(meta["al.src_tokenizer"])
    index = {w: i for i, w in enumerate(vocab)}
    return data.encode(text, spec, index, 200)


def latency(model, meta, sentences, reps):
    times = []
    with torch.no_grad():
        for _ in range(reps):
            for s in sentences:
                t0 = time.perf_counter()
                ids = encode(meta, s)
                src = torch.tensor([ids])
                greedy(model, src, torch.ones(1, len(ids)), max_len=2 * len(ids) + 10)
                times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return {"p50": statistics.median(times), "p95": times[int(0.95 * (len(times) - 1))], "n": len(times)}


def throughput(model, meta, sentences, batch=32):
    t0 = time.perf_counter()
    order = sorted(range(len(sentences)), key=lambda i: len(sentences[i]))
    with torch.no_grad():
        for k in range(0, len(order), batch):
            enc = [encode(meta, sentences[i]) for i in order[k:k + batch]]
            S = max(len(e) for e in enc)
            src = torch.zeros(len(enc), S, dtype=torch.long)
            for b, e in enumerate(enc):
                src[b, :len(e)] = torch.tensor(e)
            greedy(model, src, (src != 0).float(), max_len=2 * S + 10)
    sec = time.perf_counter() - t0
    return {"seconds": sec, "sentences_per_second": len(sentences) / sec}


def main():
    torch.set_num_threads(1)
    model, meta = load(sys.argv[1])
    with open(sys.argv[2], encoding="utf-8") as f:
        job = json.load(f)
    out = {"torch": torch.__version__, "latency": {}, "throughput": None}
    for name, sents in job["latency"].items():
        if sents:
            latency(model, meta, sents[:2], 1)  # warm-up
            out["latency"][name] = latency(model, meta, sents, job["reps"])
    if job.get("corpus"):
        out["throughput"] = throughput(model, meta, job["corpus"])
    print(json.dumps(out))


if __name__ == "__main__":
    main()
