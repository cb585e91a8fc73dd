"""The one `al.*` writer (attention_lens/metadata.py): the keys each kind of file gets, in the
documented order, and the public helper's checks on what it writes."""
import json

import pytest

torch = pytest.importorskip("torch", reason="PyTorch (python3-torch) is not installed")
onnx = pytest.importorskip("onnx", reason="onnx (python3-onnx) is not installed")

import attention_lens_export as helper  # noqa: E402

from attention_lens import metadata  # noqa: E402
from attention_lens import transformer as tf  # noqa: E402
from attention_lens.export import export_graph  # noqa: E402
from attention_lens.models import Seq2Seq  # noqa: E402

VOCAB = ["<pad>", "<unk>", "<s>", "</s>"] + list("abcdefgh")  # export_graph traces with ids 4..9
TRANSLATION_KEYS = ["al.format_version", "al.task", "al.name", "al.attention", "al.window_d", "al.src_lang", "al.tgt_lang",
                    "al.src_vocab", "al.tgt_vocab", "al.src_tokenizer", "al.tgt_tokenizer", "al.special_tokens",
                    "al.state_size", "al.local_m_ratio", "al.training_data", "al.licence", "al.test_bleu", "al.model_card"]


def info(kind="bahdanau", state_size=16):
    return {"name": f"tiny-{kind}", "kind": kind, "window": 2, "local_m_ratio": 1.0, "state_size": state_size,
            "cfg": {"src_lang": "en", "tgt_lang": "fr", "training_data": "none", "licence": "none"},
            "src_spec": {"type": "word", "lowercase": True}, "tgt_spec": {"type": "word", "lowercase": True},
            "test": {"bleu": 1.0}, "sizes": {"emb": 8}, "training": {"epochs": 0}}


def test_translation_keys():
    meta = metadata.translation(info(), VOCAB, VOCAB)
    assert list(meta) == TRANSLATION_KEYS
    assert all(isinstance(v, str) for v in meta.values())
    assert json.loads(meta["al.special_tokens"]) == {"pad": 0, "unk": 1, "bos": 2, "eos": 3}
    assert json.loads(meta["al.model_card"]) == {"sizes": {"emb": 8}, "training": {"epochs": 0}}


def test_transformer_keys_follow_the_translation_keys():
    model = tf.Transformer(len(VOCAB), len(VOCAB), d=16, heads=2, enc_layers=1, dec_layers=2, ffn=32, max_target=8)
    meta = metadata.transformer(info("transformer"), VOCAB, VOCAB, model)
    assert list(meta) == TRANSLATION_KEYS + ["al.layers", "al.heads", "al.max_target", "al.encoder_layers", "al.d_model"]
    assert (meta["al.attention"], meta["al.layers"], meta["al.heads"], meta["al.encoder_layers"]) == ("transformer", "2", "2", "1")


def test_forecaster_keys():
    class Model:
        kind, window, state_dim = "local-p", 24, 160
    meta = metadata.forecaster({"name": "f", "test": {}, "sizes": {}, "training": {}}, Model, {"history": 384})
    assert meta["al.task"] == "forecasting" and meta["al.window_d"] == "24" and json.loads(meta["al.forecast"]) == {"history": 384}
    assert "al.src_vocab" not in meta


@pytest.fixture(scope="module")
def graph(tmp_path_factory):
    torch.manual_seed(0)
    model = Seq2Seq("bahdanau", len(VOCAB), len(VOCAB), emb=8, hid=8, dec=16, window=2)
    path = str(tmp_path_factory.mktemp("graph") / "g.onnx")
    export_graph(model, path)
    return model, path


def test_written_file_passes_the_helpers_checks(graph, tmp_path):
    model, path = graph
    metadata.check_state_width(model)
    out = str(tmp_path / "m.onnx")
    meta = metadata.translation(info(state_size=model.state_dim), VOCAB, VOCAB)
    metadata.write(onnx.load(path), meta, out)
    written = onnx.load(out)
    assert [(p.key, p.value) for p in written.metadata_props] == list(meta.items())
    assert helper.python_check(out)[0] == []


def test_a_file_the_app_cannot_read_is_refused(graph, tmp_path):
    _, path = graph
    meta = metadata.translation(info(), VOCAB, VOCAB)
    del meta["al.special_tokens"]
    with pytest.raises(helper.ExportError, match="al.special_tokens"):
        metadata.write(onnx.load(path), meta, str(tmp_path / "m.onnx"))
