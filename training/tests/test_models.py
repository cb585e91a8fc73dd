"""A tiny model's `step`, as exported (keys recomputed, output projected each step), against the
teacher-forced `forward` training uses, for every attention kind and the Transformer."""
import pytest

torch = pytest.importorskip("torch", reason="PyTorch (python3-torch) is not installed")

from attention_lens import transformer as tf  # noqa: E402
from attention_lens.models import KINDS, Seq2Seq  # noqa: E402


def batch(V=30, B=3, S=7, T=6, seed=0):
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(4, V, (B, S), generator=g)
    mask = torch.ones(B, S)
    mask[1, S - 2:] = 0  # one padded sentence, so masking is exercised
    src[1, S - 2:] = 0
    tgt_in = torch.randint(4, V, (B, T), generator=g)
    tgt_in[:, 0] = 2
    return src, mask, tgt_in


@pytest.mark.parametrize("kind", KINDS)
def test_rnn_step_matches_forward(kind):
    torch.manual_seed(1)
    model = Seq2Seq(kind, 30, 30, emb=8, hid=8, dec=16, window=2).eval()
    src, mask, tgt_in = batch()
    with torch.no_grad():
        full = model(src, mask, tgt_in)
        H, state = model.encode(src, mask)
        m = mask if kind != "none" else mask[:, :1]
        B, S = H.shape[0], H.shape[1]
        for t in range(tgt_in.shape[1]):
            o = model.step(tgt_in[:, t], state, H, m, torch.full((B,), float(t)), torch.zeros(B, S), torch.zeros(B, 1))
            state = o["next_state"]
            assert torch.allclose(o["logits"], full[:, t], atol=1e-5), (kind, t, (o["logits"] - full[:, t]).abs().max())
            if kind != "none":
                rows = o["attention"].sum(1)
                assert torch.allclose(rows, torch.ones_like(rows), atol=1e-5) or kind == "local-p"


def test_transformer_step_matches_forward():
    torch.manual_seed(1)
    model = tf.Transformer(30, 30, d=16, heads=2, enc_layers=2, dec_layers=2, ffn=32, max_target=16, dropout=0.0)
    src, mask, tgt_in = batch()
    with torch.no_grad():
        assert tf.check_step_matches_forward(model, src, mask, tgt_in) < 1e-4
