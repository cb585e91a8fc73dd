"""The contributions reference on the weights of a folder's fp16 or q8 conversion (issue 41, measuring only).

contributions_reference_hf.py remakes a test folder's model from its seed; here its weights are
then replaced by those of an fp16 or q8 conversion of the same folder (training/hf_variants.py
to_fp16 / quantize_q8), so the app's numbers on the converted files can be held to a model with
the same weights, not only to the fp32 one:

- fp16: every parameter rounded to float16 (what convert_float_to_float16 does to each initializer).
- q8: each Linear's weight replaced by its dequantized MatMulInteger weight, (W_q - zero_point) *
  scale; the weight is found in the fp32 ONNX by value (the TorchScript exporter names them
  onnx::MatMul_N) and its quantized form by quantize_dynamic's names (N_quantized, _scale, _zero_point).

The activations stay float64 here; the converted graphs round them (fp16) or quantize them at run
time (q8's DynamicQuantizeLinear), which is what is left between the two. For example, with
/tmp/md-q8 made from test/fixtures/hf/marian-dynamo by hf_variants.quantize_q8 (each .onnx):

    /tmp/hfvenv/bin/python training/contributions_reference_hf_variants.py --folder test/fixtures/hf/marian-dynamo \
        --seed 6 --kind q8 --variant /tmp/md-q8 --cases test/fixtures/contributions/hf-marian-dynamo.json.gz --out /tmp/q8-ref.json.gz
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from contributions_reference_hf import reference, seeded_model  # noqa: E402


def dequantize_into(model, folder: Path, variant: Path) -> int:
    """Each Linear whose weight is a quantized MatMul in the variant's files gets the dequantized weight; returns how many."""
    import onnx
    from onnx import numpy_helper

    done = 0
    for f in sorted(p.name for p in folder.glob("*.onnx")):
        if not (variant / f).exists():
            continue
        fp = {t.name: numpy_helper.to_array(t) for t in onnx.load(str(folder / f)).graph.initializer}
        q = {t.name: numpy_helper.to_array(t) for t in onnx.load(str(variant / f)).graph.initializer}
        for mod in model.modules():
            if not isinstance(mod, torch.nn.Linear):
                continue
            wt = mod.weight.detach().numpy().T
            for name, v in fp.items():
                if v.shape == wt.shape and f"{name}_quantized" in q and np.array_equal(v, wt):
                    w = (q[f"{name}_quantized"].astype(np.float64) - q[f"{name}_zero_point"].astype(np.float64)) * q[f"{name}_scale"].astype(np.float64)
                    with torch.no_grad():
                        mod.weight.copy_(torch.tensor(w.T, dtype=torch.float32))
                    done += 1
                    break
    return done


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--folder", required=True, help="the fp32 test folder")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--kind", choices=["fp16", "q8"], required=True)
    p.add_argument("--variant", help="the folder with the q8 files (q8 only)")
    p.add_argument("--cases", required=True, help="the fp32 reference (contributions_reference_hf.py's output): its sentences and output ids")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    torch.set_num_threads(1)
    folder = Path(a.folder)
    _, model = seeded_model(folder, a.seed)
    if a.kind == "fp16":
        with torch.no_grad():
            for w in model.parameters():
                w.copy_(w.half().float())
    else:
        print(f"dequantized {dequantize_into(model, folder, Path(a.variant))} Linear weights")
    with gzip.open(a.cases, "rt", encoding="utf-8") as f:
        fp32 = json.load(f)
    cases = []
    for c in fp32["cases"]:
        case = {"source": c["source"], "src_ids": c["src_ids"], "tgt_ids": c["tgt_ids"]}
        case.update(reference(model, c["src_ids"], c["tgt_ids"], fp32["start"]))
        cases.append(case)
    with gzip.open(a.out, "wt", encoding="utf-8") as f:
        json.dump({"folder": folder.name, "seed": a.seed, "kind": a.kind, "start": fp32["start"], "cases": cases}, f, separators=(",", ":"))
    print(f"wrote {a.out}: {len(cases)} sentences")


if __name__ == "__main__":
    sys.exit(main())
