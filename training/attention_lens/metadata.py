"""The one writer of the `al.*` metadata (docs/model-format.md) for every file the zoo writes: the
RNN translation models (export.py), the Transformer (export_transformer.py), the forecasters
(forecast.py), and re-exports (reexport.py, which copies an older file's entries). Every file it
writes then goes through the public export helper's checks (training/attention_lens_export.py,
`python_check`: the metadata keys the app needs, the declared shapes and dtypes, no fixed batch
size, no NaN weights, one decoding step when onnxruntime is installed), so the zoo meets the bar a
user's export does; a problem stops the export (ExportError), a warning is printed."""
import json

import onnx
import torch

FORMAT_VERSION = "1"
SPECIAL_TOKENS = {"pad": 0, "unk": 1, "bos": 2, "eos": 3}
FORECAST_DATA = ("Half-hourly electricity demand, England and Wales, 5 June - 27 August 2000 "
                 "(J.W. Taylor 2003; the taylor series of the R package forecast); last two weeks held out")
FORECAST_LICENCE = "research and teaching use; cite Taylor (2003)"


def _helper():
    # training/ is on the path wherever this package is importable (it is the package's parent),
    # and the helper stays a single file there that users copy, so it is imported, not packaged.
    import attention_lens_export
    return attention_lens_export


def _card(info):
    return json.dumps({k: info[k] for k in ("sizes", "training")})


def translation(info, src_vocab, tgt_vocab):
    """An RNN translation model's keys; `info` is train.py's record of the model."""
    cfg = info["cfg"]
    return {
        "al.format_version": FORMAT_VERSION,
        "al.task": "translation",
        "al.name": info["name"],
        "al.attention": info["kind"],
        "al.window_d": str(info["window"]),
        "al.src_lang": cfg["src_lang"],
        "al.tgt_lang": cfg["tgt_lang"],
        "al.src_vocab": json.dumps(src_vocab, ensure_ascii=False),
        "al.tgt_vocab": json.dumps(tgt_vocab, ensure_ascii=False),
        "al.src_tokenizer": json.dumps(info["src_spec"], ensure_ascii=False),
        "al.tgt_tokenizer": json.dumps(info["tgt_spec"], ensure_ascii=False),
        "al.special_tokens": json.dumps(SPECIAL_TOKENS),
        "al.state_size": str(info["state_size"]),
        "al.local_m_ratio": repr(info["local_m_ratio"]),
        "al.training_data": cfg["training_data"],
        "al.licence": cfg["licence"],
        "al.test_bleu": json.dumps(info["test"]),
        "al.model_card": _card(info),
    }


def transformer(info, src_vocab, tgt_vocab, model):
    """The translation keys (in their order), then the Transformer's sizes (docs/model-format.md, "Transformer models")."""
    meta = translation(info, src_vocab, tgt_vocab)
    meta.update({
        "al.attention": model.kind,
        "al.layers": str(model.dec_layers_n),
        "al.heads": str(model.heads),
        "al.max_target": str(model.max_target),
        "al.encoder_layers": str(model.enc_layers_n),
        "al.d_model": str(model.d),
    })
    return meta


def forecaster(info, model, forecast_spec):
    """A forecaster's keys (docs/model-format.md, "Forecasting models")."""
    return {
        "al.format_version": FORMAT_VERSION,
        "al.task": "forecasting",
        "al.name": info["name"],
        "al.attention": model.kind,
        "al.window_d": str(model.window if model.kind == "local-p" else 0),
        "al.state_size": str(model.state_dim),
        "al.forecast": json.dumps(forecast_spec),
        "al.training_data": FORECAST_DATA,
        "al.licence": FORECAST_LICENCE,
        "al.test_metrics": json.dumps(info["test"]),
        "al.model_card": _card(info),
    }


def check_state_width(model):
    """The helper's refusal, before anything is written, of a decoder state whose width follows the
    source length (the traced graph would fix the example's). The RNGs are left as they were, so
    the export and parity fixture are what they were without this check."""
    helper = _helper()
    with torch.random.fork_rng(), torch.no_grad():
        _, init = model.encode(torch.full((1, 5), SPECIAL_TOKENS["eos"]), torch.ones(1, 5))
        helper.check_state_width(model.encode, helper.StatePacker(init), SPECIAL_TOKENS, model.encoder.emb.num_embeddings)


def write(m, meta, path):
    """Replaces the ModelProto's metadata by `meta` (in its order), checks the graph, writes it to
    `path` and runs the helper's checks on the file."""
    del m.metadata_props[:]
    for k, v in meta.items():
        p = m.metadata_props.add()
        p.key, p.value = k, v
    onnx.checker.check_model(m)
    onnx.save(m, path)
    check_file(path)


def check_file(path):
    helper = _helper()
    problems, warnings = helper.python_check(path)
    for w in warnings:
        print(f"  ! {path}: {w}", flush=True)
    if problems:
        raise helper.ExportError(f"{path}: " + "; ".join(problems))
