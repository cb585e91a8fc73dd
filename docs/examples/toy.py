"""The toy task the examples in this folder share: eight English→German pairs, vocabularies, a
few seconds of teacher-forced training through the very `step` that is exported, and the greedy
decode the app runs on the file (so each example can print PyTorch's output for the test to
compare). Not needed to export your own model: see each example's model class."""
import torch
import torch.nn as nn

PAIRS = [("a dog runs", "ein hund läuft"), ("a cat sleeps", "eine katze schläft"), ("the dog sleeps", "der hund schläft"),
         ("the cat runs", "die katze läuft"), ("a man reads", "ein mann liest"), ("the woman reads a book", "die frau liest ein buch"),
         ("a man runs", "ein mann läuft"), ("the woman sleeps", "die frau schläft")]


class Toy:
    """Vocabularies that start with `specials` (strings), ids, padded batches."""

    def __init__(self, specials, pad, unk, bos, eos):
        self.pad, self.unk, self.bos, self.eos = pad, unk, bos, eos
        self.src_vocab = specials + sorted({w for s, _ in PAIRS for w in s.split()})
        self.tgt_vocab = specials + sorted({w for _, t in PAIRS for w in t.split()})

    def ids(self, text, vocab, eos=True):
        return [vocab.index(w) if w in vocab else self.unk for w in text.split()] + ([self.eos] if eos else [])

    def padded(self, rows):
        n = max(map(len, rows))
        return torch.tensor([r + [self.pad] * (n - len(r)) for r in rows])

    def train(self, model, steps=150):
        """Teacher forcing on the eight pairs; the loss ignores padded target positions."""
        src = self.padded([self.ids(s, self.src_vocab) for s, _ in PAIRS])
        lengths = torch.tensor([len(self.ids(s, self.src_vocab)) for s, _ in PAIRS])
        mask = (torch.arange(src.shape[1])[None, :] < lengths[:, None]).float()  # not src != pad: pad may be a real id
        tgt_in = self.padded([[self.bos] + self.ids(t, self.tgt_vocab, eos=False) for _, t in PAIRS])
        tgt_out = self.padded([self.ids(t, self.tgt_vocab) for _, t in PAIRS])
        tgt_len = torch.tensor([len(self.ids(t, self.tgt_vocab)) for _, t in PAIRS])
        weight = (torch.arange(tgt_out.shape[1])[None, :] < tgt_len[:, None]).float()
        opt = torch.optim.Adam(model.parameters(), 1e-2)
        for _ in range(steps):
            enc, state = model.encode(src, mask)
            loss = 0
            for t in range(tgt_in.shape[1]):
                o = model.step(tgt_in[:, t], state, enc, mask)
                state = o["state"]
                per = nn.functional.cross_entropy(o["logits"], tgt_out[:, t], reduction="none")
                loss = loss + (per * weight[:, t]).sum() / weight[:, t].sum().clamp(min=1)
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()

    def greedy(self, model, text):
        """What the app does with the file: encode once, then step until </s> or 2·S + 10 steps,
        never writing <pad>, <unk> or <s>."""
        never = {self.pad, self.unk, self.bos} - {self.eos}
        src = torch.tensor([self.ids(text, self.src_vocab)])
        enc, state = model.encode(src, torch.ones(src.shape))
        prev, out = torch.tensor([self.bos]), []
        with torch.no_grad():
            for _ in range(2 * src.shape[1] + 10):
                o = model.step(prev, state, enc, torch.ones(src.shape))
                logits = o["logits"].clone()
                logits[:, list(never)] = float("-inf")
                state, prev = o["state"], logits.argmax(1)
                if prev.item() == self.eos:
                    break
                out.append(self.tgt_vocab[prev.item()])
        return " ".join(out)
