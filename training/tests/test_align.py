"""The alignment-supervision losses (issue 35) on a hand-made example, values computed by hand."""
import math

import pytest

torch = pytest.importorskip("torch", reason="python3-torch is not installed")

from attention_lens import align, data  # noqa: E402

# 3 target steps x 4 source positions; target 0 is linked to source 0, target 1 to sources 2 and 3,
# target 2 to nothing (it is left out of both losses).
ATTENTION = torch.tensor([[[0.5, 0.25, 0.125, 0.125],
                           [0.1, 0.2, 0.3, 0.4],
                           [0.25, 0.25, 0.25, 0.25]]])
LINKS = [[[0], [2, 3], []]]


def test_link_matrix():
    m = align.link_matrix(LINKS, 3, 4)
    assert m.tolist() == [[[1, 0, 0, 0], [0, 0, 1, 1], [0, 0, 0, 0]]]


def test_attention_ce_by_hand():
    # step 0: q = (1, 0, 0, 0) -> -ln 0.5 = 0.693147
    # step 1: q = (0, 0, 1/2, 1/2) -> -(ln 0.3 + ln 0.4) / 2 = (1.203973 + 0.916291) / 2 = 1.060132
    # step 2: no links, skipped; the mean over the 2 linked steps: 0.876640
    by_hand = (0.693147 + 1.060132) / 2
    assert by_hand == pytest.approx(0.876640, abs=1e-6)
    assert (-math.log(0.5) - 0.5 * (math.log(0.3) + math.log(0.4))) / 2 == pytest.approx(by_hand, abs=1e-6)
    loss = align.attention_ce(ATTENTION, align.link_matrix(LINKS, 3, 4))
    assert loss.item() == pytest.approx(by_hand, abs=1e-5)  # eps 1e-6 inside the log


def test_attention_ce_is_zero_on_the_links():
    links = align.link_matrix(LINKS, 3, 4)
    exact = torch.tensor([[[1.0, 0, 0, 0], [0, 0, 0.5, 0.5], [0.25, 0.25, 0.25, 0.25]]])
    # -0.5 ln 0.5 * 2 = ln 2 for step 1 (the entropy of q), 0 for step 0: the minimum is q's entropy.
    assert align.attention_ce(exact, links).item() == pytest.approx(math.log(2) / 2, abs=1e-5)


def test_position_loss_by_hand():
    links = align.link_matrix(LINKS, 3, 4)
    target, has = align.position_target(links)
    assert target.tolist() == [[0.0, 2.5, 0.0]] and has.tolist() == [[1.0, 1.0, 0.0]]
    # p = (0.4, 4.0, 1.0): |0.4 - 0| < 1 -> 0.5 * 0.16 = 0.08; |4.0 - 2.5| = 1.5 -> 1.5 - 0.5 = 1.0;
    # step 2 skipped: (0.08 + 1.0) / 2 = 0.54
    p = torch.tensor([[0.4, 4.0, 1.0]])
    assert align.position_loss(p, links).item() == pytest.approx(0.54, abs=1e-6)


def test_unit_links_become_piece_links():
    # No merges: every character is a piece; "ab c" -> a@@ b c (units ab, c), "x yz" -> x y@@ z.
    spec = {"type": "bpe", "lowercase": True, "joiner": "@@", "end_of_word_suffix": "</w>", "merges": []}
    assert align.piece_units("ab c", spec) == [0, 0, 1]
    assert align.piece_units("x yz", spec) == [0, 1, 1]
    # unit links: source unit 1 (c) - target unit 0 (x); source unit 0 (ab) - target unit 1 (yz)
    links = [(1, 0, True), (0, 1, True)]
    assert align.piece_links("ab c", "x yz", spec, spec, links) == [[2], [0, 1], [0, 1]]
    # --max-len 2: source piece 2 and target piece 2 are cut off
    assert align.piece_links("ab c", "x yz", spec, spec, links, max_len=2) == [[], [0, 1]]


def test_batches_carry_the_links():
    pairs = [([5, 6, 3], [7, 8, 3], [[0], [1], []]), ([5, 3], [7, 3], [[0], []])]
    plain = list(data.batches([p[:2] for p in pairs], 2, shuffle=False))
    linked = list(data.batches(pairs, 2, shuffle=False))
    assert len(plain[0]) == 4 and len(linked[0]) == 5
    for a, b in zip(plain[0], linked[0][:4]):
        assert torch.equal(a, b)
    src, _, _, tout, links = linked[0]
    assert links.shape == (2, tout.shape[1], src.shape[1])
