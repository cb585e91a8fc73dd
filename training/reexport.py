"""Re-exports a bundled translation model from its own ONNX file: the weights are read back from
the initializers (they keep their PyTorch names), the graph is written again by export.py's
current exporter, and every metadata entry is copied over unchanged. For exporter changes that
do not change the model (such as the decoder cell as one GRU node): no retraining, same weights,
same parity fixture. A Transformer (`al.attention = transformer`) is written by
export_transformer.py's exporter, and its `al.state_size` updated to that exporter's.

    /usr/bin/python3 training/reexport.py resources/models/en-fr-bahdanau.onnx [...]
"""
import os
import sys
import tempfile

import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_torch import load  # noqa: E402
from attention_lens.export import FLOAT16_SUFFIX, export_graph, store_float16  # noqa: E402
from attention_lens import export_transformer  # noqa: E402
from attention_lens import metadata  # noqa: E402
from attention_lens import transformer as tf  # noqa: E402


def reexport(path):
    old = onnx.load(path)
    model, _ = load(path)
    transformer = {p.key: p.value for p in old.metadata_props}.get("al.attention") == tf.KIND
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "m.onnx")
        if transformer:
            m = export_transformer.export_graph(model, out)
        else:
            export_graph(model, out)
            m = onnx.load(out)
            # A file that stored its weights as float16 keeps doing so (they are rounded already).
            if any(t.name.endswith(FLOAT16_SUFFIX) for t in old.graph.initializer):
                store_float16(m)
    meta = {p.key: p.value for p in old.metadata_props}
    if transformer:
        # The cache's layout may have changed: al.state_size is what this exporter says it is.
        meta["al.state_size"] = str(model.state_dim)
    m.producer_name = old.producer_name
    metadata.write(m, meta, path)
    ops = sorted({n.op_type for n in m.graph.node})
    print(f"{path}: {len(m.graph.node)} nodes (was {len(old.graph.node)}), GRU nodes {sum(n.op_type == 'GRU' for n in m.graph.node)}", flush=True)
    return ops


if __name__ == "__main__":
    for p in sys.argv[1:]:
        reexport(p)
