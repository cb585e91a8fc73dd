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


def test_transformer_without_eos_never_reads_it():
    """attend_eos=False: cross-attention gives the source `</s>` (each sentence's last real
    position) no weight, in step and in forward alike."""
    torch.manual_seed(1)
    model = tf.Transformer(30, 30, d=16, heads=2, enc_layers=2, dec_layers=2, ffn=32, max_target=16, dropout=0.0,
                           attend_eos=False)
    src, mask, tgt_in = batch()
    with torch.no_grad():
        assert tf.check_step_matches_forward(model, src, mask, tgt_in) < 1e-4
        H, state = model.encode(src, mask)
        B, S = H.shape[0], H.shape[1]
        o = model.step(tgt_in[:, 0], state, H, mask, torch.zeros(B), torch.zeros(B, S), torch.zeros(B, 1))
    last = (mask.sum(1) - 1).long()
    eos = o["attention"][torch.arange(B), last]
    assert torch.all(eos == 0), eos
    rows = o["attention"].sum(1)
    assert torch.allclose(rows, torch.ones_like(rows), atol=1e-5)


def test_transformer_greedy_decodes():
    """The Transformer decodes through models.greedy (which passes K only to the RNN step)."""
    torch.manual_seed(1)
    model = tf.Transformer(30, 30, d=16, heads=2, enc_layers=2, dec_layers=2, ffn=32, max_target=16, dropout=0.0)
    src, mask, _ = batch()
    ids, steps = tf.greedy(model, src, mask, max_len=5)
    assert len(ids) == src.shape[0] and len(steps) >= 1


def test_diagonal_guide():
    """Zero on the diagonal t * last / (T - 1), positive off it; padded target steps do not count."""
    from attention_lens.models import diagonal_guide
    mask = torch.tensor([[1.0, 1, 1, 1, 1], [1, 1, 1, 0, 0]])  # 5 and 3 tokens, </s> last
    tgt_out = torch.tensor([[5, 6, 7], [5, 6, 0]])  # 3 and 2 target tokens
    # attend_eos=False: the last readable position is 3 (and 1); the diagonals are 0, 1.5, 3 and 0, 1.
    on = torch.tensor([[0.0, 1.5, 3.0], [0.0, 1.0, 99.0]])
    assert float(diagonal_guide(on, mask, tgt_out, attend_eos=False)) == 0.0
    off = on.clone()
    off[0, 1] += 2.0  # smooth L1 of 2 with beta 1: 1.5, averaged over the 5 real steps
    assert abs(float(diagonal_guide(off, mask, tgt_out, attend_eos=False)) - 1.5 / 5) < 1e-6
    # With </s> readable, the diagonal ends on it.
    assert float(diagonal_guide(torch.tensor([[0.0, 2.0, 4.0], [0.0, 2.0, 0.0]]), mask, tgt_out)) == 0.0
