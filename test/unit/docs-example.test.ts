import { spawnSync } from '../spawn-sync'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect } from 'vitest'
import { checkFile, exitCode } from '../../src/engine/check'
import { InferenceService } from '../../src/engine/service'
import { ROOT, tempDir } from '../helpers'
import { itWithTorch, PY } from '../torch'
import { NO_REPEAT_GUARD } from '../../src/shared/repeat-guard'

/** PyTorch's greedy decoder has no repeat guard: the engine's comparisons run with both off. */
const RAW = NO_REPEAT_GUARD

// Debian's PyTorch (python3-torch, python3-onnx), as training/ uses it; elsewhere these are skipped, by name (test/torch.ts).

/** Runs Python with the helper's own checks (the app's are run here, in-process). */
function python(args: string[]) {
  const r = spawnSync(PY, args, { cwd: ROOT, encoding: 'utf8', timeout: 240_000, env: { ...process.env, ATTENTION_LENS: 'python', OMP_NUM_THREADS: '1' } })
  return { code: r.status, out: r.stdout.trim(), err: r.stderr }
}

/**
 * Runs an example in docs/examples, which writes `file` and prints, last, PyTorch's greedy output
 * per source sentence as JSON; the app's checks find nothing in the file it wrote.
 */
async function exportedExample(script: string, file: string): Promise<{ out: string; torchGreedy: Record<string, string> }> {
  const out = join(tempDir(), file)
  const r = python([join(ROOT, 'docs', 'examples', script), out])
  expect(r.code, r.err).toBe(0)
  const torchGreedy = JSON.parse(r.out.split('\n').at(-1)!) as Record<string, string>
  const report = await checkFile(out)
  expect(report.fatal).toEqual([])
  expect(report.findings).toEqual([])
  expect(exitCode(report)).toBe(0)
  return { out, torchGreedy }
}

describe('the runnable example in docs/examples', () => {
  itWithTorch(
    'exports an LSTM with Luong dot attention that passes check and translates in the engine as PyTorch does',
    async () => {
      const { out, torchGreedy } = await exportedExample('lstm_luong_dot.py', 'lstm-luong-dot.onnx')
      const service = new InferenceService()
      const info = await service.open(out)
      expect(info).toMatchObject({ name: 'lstm-luong-dot', attention: 'luong-dot', srcLang: 'en', tgtLang: 'de', findings: [] })
      for (const [source, text] of Object.entries(torchGreedy)) {
        const t = await service.translate(out, source, RAW)
        expect(t.text).toBe(text)
        expect(t.attention).toHaveLength(t.tgtTokens.length)
      }
      const beam = await service.translate(out, 'a dog runs', { beam: 4 })
      expect(beam.tgtTokens.at(-1)).toBe('</s>')
      const w = await service.whatIf(out, { modelId: '', text: 'a dog runs', steps: [0], mode: 'onehot', sourceIndex: 2 })
      expect(w.modified.attention[0]).toEqual([0, 0, 1, 0])
      await service.closeAll()
    },
    300_000,
  )

  itWithTorch(
    'exports a Transformer built from torch.nn parts that passes check and translates, head by head, as PyTorch does',
    async () => {
      const { out, torchGreedy } = await exportedExample('transformer_nn.py', 'transformer-nn.onnx')
      expect(Object.keys(torchGreedy).length).toBeGreaterThan(1)
      const service = new InferenceService()
      const info = await service.open(out)
      expect(info).toMatchObject({ name: 'transformer-nn', attention: 'transformer', heads: { layers: 2, heads: 2 }, findings: [] })
      /** The average of one step's L × H head rows, which `attention` must equal when no head is silenced. */
      const mean = (heads: number[][][], keep = (_l: number, _h: number) => true) => {
        const rows = heads.flatMap((layer, l) => layer.filter((_, h) => keep(l, h)))
        return rows[0].map((_, s) => rows.reduce((a, row) => a + row[s], 0) / rows.length)
      }
      for (const [source, text] of Object.entries(torchGreedy)) {
        const t = await service.translate(out, source, RAW)
        expect(t.text).toBe(text)
        expect(t.attention).toHaveLength(t.tgtTokens.length)
        expect(t.crossAttention).toHaveLength(t.tgtTokens.length)
        t.crossAttention!.forEach((heads, step) => {
          expect(heads.map((layer) => layer.map((row) => row.length))).toEqual([
            [t.srcTokens.length, t.srcTokens.length],
            [t.srcTokens.length, t.srcTokens.length],
          ])
          mean(heads).forEach((m, s) => expect(t.attention[step][s]).toBeCloseTo(m, 5))
        })
      }
      // What-if: layer 1, head 0 silenced at the first step leaves the other three heads' average.
      const source = Object.keys(torchGreedy)[0]
      const w = await service.whatIf(out, { modelId: '', text: source, steps: [0], mode: 'silence', head: { layer: 1, head: 0 }, ...RAW })
      expect(w.original.text).toBe(torchGreedy[source])
      const heads = w.modified.crossAttention![0]
      const others = mean(heads, (l, h) => !(l === 1 && h === 0))
      others.forEach((m, s) => expect(w.modified.attention[0][s]).toBeCloseTo(m, 5))
      expect(w.modified.attention[0]).not.toEqual(mean(heads))
      await service.closeAll()
    },
    300_000,
  )
})

/**
 * The three examples for models that break batches or the state unless exported with care
 * (docs/model-format.md): each passes check with no finding at all (so batches equal single
 * sentences) and translates in the app as in PyTorch.
 */
describe('the examples for bidirectional encoders, vocabularies without <pad> and coverage', () => {
  for (const [script, file, attention] of [
    ['bigru_packed.py', 'bigru-packed.onnx', 'bahdanau'],
    ['spm_no_pad.py', 'spm-no-pad.onnx', 'luong-general'],
    ['gru_coverage.py', 'gru-coverage.onnx', 'bahdanau'],
  ])
    itWithTorch(
      `${script} exports a model that passes check and translates as PyTorch does`,
      async () => {
        const { out, torchGreedy } = await exportedExample(script, file)
        const service = new InferenceService()
        const info = await service.open(out)
        expect(info).toMatchObject({ attention, findings: [] })
        const sources = Object.keys(torchGreedy)
        for (const source of sources) expect((await service.translate(out, source, RAW)).text).toBe(torchGreedy[source])
        // BLEU by length's batches: both sentences at once, as one batch, the same as alone.
        const evaluated = await service.evaluate(out, sources, Object.values(torchGreedy), { batchSize: 2, guard: RAW })
        expect(evaluated.hypotheses).toEqual(Object.values(torchGreedy))
        await service.closeAll()
      },
      300_000,
    )
})

// A GRU (its state one [layers, B, H] tensor), a local-p model declaring its score function, and
// a forecaster, through the same helper.
const SCRIPT = String.raw`
import sys, torch, torch.nn as nn
sys.path.insert(0, "training")
from attention_lens_export import export_translation, export_forecaster, ExportError

V = ["<pad>", "<unk>", "<s>", "</s>", "a", "b", "c"]

class GRU(nn.Module):
    def __init__(self, H=16, local=False):
        super().__init__()
        self.local = local
        self.emb, self.enc, self.dec = nn.Embedding(7, H), nn.GRU(H, H, 2, batch_first=True), nn.GRU(H, H, 2, batch_first=True)
        self.out, self.p = nn.Linear(2 * H, 7), nn.Linear(H, 1)
    def encode(self, src_ids, src_mask):
        H, _ = self.enc(self.emb(src_ids))
        m = src_mask.unsqueeze(2)
        h = ((H * m).sum(1) / m.sum(1)).unsqueeze(0).repeat(2, 1, 1)
        return H * m, h
    def step(self, prev_token, state, encoder_states, src_mask, **extra):
        o, state = self.dec(self.emb(prev_token).unsqueeze(1), state)
        s = o.squeeze(1)
        scores = torch.bmm(encoder_states, s.unsqueeze(2)).squeeze(2)
        out = {"state": state, "scores": scores}
        if self.local:
            D = 2.0
            S = src_mask.sum(1, keepdim=True)
            p = S * torch.sigmoid(self.p(s))
            pos = torch.cumsum(torch.ones_like(src_mask), 1) - 1
            inside = (src_mask > 0) & ((pos - p).abs() <= D)
            align = torch.softmax(scores.masked_fill(~inside, -1e9), 1) * inside.float()
            gauss = torch.exp(-((pos - p) ** 2) / (2 * (D / 2) ** 2)) * src_mask
            w = align * gauss
            out.update(position=p.squeeze(1), window=torch.cat([p - D, p + D], 1), gaussian=gauss, align=align)
        else:
            w = torch.softmax(scores.masked_fill(src_mask == 0, -1e9), 1)
        on = extra["override_on"].unsqueeze(1)
        w = on * extra["attn_override"] + (1 - on) * w
        out["attention"] = w
        out["logits"] = self.out(torch.cat([torch.bmm(w.unsqueeze(1), encoder_states).squeeze(1), s], 1))
        return out

common = dict(src_vocab=V, tgt_vocab=V, special_tokens={"PAD": 0, "UNK": 1, "cls": "<s>", "sep": "</s>"},
              src_tokenizer="char", tgt_tokenizer={"type": "char", "keep_spaces": True}, src_lang="en", tgt_lang="de")
torch.manual_seed(0)
g = GRU()
export_translation(sys.argv[1], g.encode, g.step, attention="luong-dot", check=False, **common)
l = GRU(local=True)
export_translation(sys.argv[2], l.encode, l.step, attention="local-p", window_d=2, score="dot", check=False, **common)

class Forecaster(nn.Module):
    def __init__(self, H=8):
        super().__init__()
        self.enc, self.cell, self.out = nn.GRU(3, H, batch_first=True), nn.GRUCell(1 + 2 + H, H), nn.Linear(H, 1)
    def encode(self, history):
        H, h = self.enc(history)
        return H, h[0]
    def step(self, prev_value, state, encoder_states, step_features, attn_override, override_on):
        w = torch.softmax(torch.bmm(encoder_states, state.unsqueeze(2)).squeeze(2), 1)
        w = override_on.unsqueeze(1) * attn_override + (1 - override_on.unsqueeze(1)) * w
        c = torch.bmm(w.unsqueeze(1), encoder_states).squeeze(1)
        s = self.cell(torch.cat([prev_value.unsqueeze(1), step_features, c], 1), state)
        return {"forecast": self.out(s).squeeze(1), "state": s, "attention": w, "scores": w.log()}

f = Forecaster()
export_forecaster(sys.argv[3], f.encode, f.step, attention="luong-general", history=96, horizon=8, period_minutes=15,
                  features=["value", "tod_sin", "tod_cos"], step_features=["tod_sin", "tod_cos"], mean=100.0, std=10.0,
                  seasonal_lags=[96], check=False)
try:
    export_translation(sys.argv[1], g.encode, g.step, attention="luong-dot", check=False, **dict(common, special_tokens={"pad": "<pad>", "unk": "<unk>", "bos": "<s>", "eos": "<eos>"}))
except ExportError as e:
    print(e)
`

describe('training/attention_lens_export.py, the export helper', () => {
  itWithTorch(
    'packs a GRU state, writes local-p and a forecaster, and every file passes check',
    async () => {
      const dir = tempDir()
      const script = join(dir, 'export.py')
      writeFileSync(script, SCRIPT)
      const [dot, local, forecaster] = ['gru-dot.onnx', 'gru-local-p.onnx', 'forecaster.onnx'].map((f) => join(dir, f))
      const r = python([script, dot, local, forecaster])
      expect(r.code, r.err).toBe(0)
      // Special tokens are looked up by string; one the vocabularies lack is said before anything is written.
      expect(r.out).toBe('the eos token "<eos>" is not in both vocabularies')
      for (const path of [dot, local, forecaster]) {
        const report = await checkFile(path)
        expect({ path, fatal: report.fatal, findings: report.findings }).toEqual({ path, fatal: [], findings: [] })
      }
      const service = new InferenceService()
      const info = await service.open(local)
      expect(info).toMatchObject({ attention: 'local-p', windowD: 2, localScore: 'dot' })
      const t = await service.translate(local, 'abc')
      expect(t.srcTokens).toEqual(['a', 'b', 'c', '</s>'])
      expect(t.positions).toHaveLength(t.tgtTokens.length)
      const f = await service.open(forecaster)
      expect(f.forecast).toMatchObject({ history: 96, horizon: 8, periodMinutes: 15, seasonalLags: [96] })
      await service.closeAll()
    },
    300_000,
  )
})
