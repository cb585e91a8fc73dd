import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { forcedDecode, translate } from '../../../../src/engine/decode'
import { LoadedModel } from '../../../../src/engine/model'
import { pairAttentions } from '../../../../src/engine/align/attention'
import { ROOT } from '../../../helpers'

/**
 * Decoding a Hugging Face folder as transformers does (issue 39 item 5, issue 40 item 10), against
 * PyTorch: test/fixtures/hf/<name>/generation-reference.json, written by
 * training/hf_generation_refs.py from the fixtures' own models (rebuilt, and checked to be them).
 */
const HF = join(ROOT, 'test', 'fixtures', 'hf')

interface Forced {
  input_ids: number[]
  target: string
  target_ids: number[]
  decoder_input_ids: number[]
  log_probs: number[]
  cross_attentions: string
  shape: number[]
}
interface GenRef {
  forced: Forced[]
  configs: { generation_config: Record<string, unknown>; sentences: { input_ids: number[]; greedy: number[]; beam4: number[] }[] }[]
}
const genRef = (name: string) => JSON.parse(readFileSync(join(HF, name, 'generation-reference.json'), 'utf8')) as GenRef
const texts = (name: string) =>
  (JSON.parse(readFileSync(join(HF, name, 'reference.json'), 'utf8')) as { sentences: { text: string; input_ids: number[]; greedy: number[] }[] }).sentences
const floats = (b64: string) => {
  const buf = Buffer.from(b64, 'base64')
  return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length))
}
const idsOf = (m: LoadedModel, tokens: string[]) => {
  const index = new Map(m.spec.tgtVocab.map((p, i) => [p, i]))
  return tokens.map((t) => index.get(t) ?? -1)
}

const opened: LoadedModel[] = []
const temps: string[] = []
afterAll(async () => {
  for (const m of opened) await m.release()
  for (const d of temps) rmSync(d, { recursive: true, force: true })
})
async function open(path: string): Promise<LoadedModel> {
  const m = await LoadedModel.open(path)
  opened.push(m)
  return m
}
/** A copy of a fixture folder with its generation_config.json replaced. */
function withGeneration(name: string, config: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), `al-gen-${name}-`))
  temps.push(dir)
  cpSync(join(HF, name), dir, { recursive: true })
  writeFileSync(join(dir, 'generation_config.json'), JSON.stringify(config))
  return dir
}

describe.each(['m2m100', 'bart'])('forced decoding of %s feeds the forced first token, as transformers teacher forcing does', (name) => {
  it('scores a reference: its ids, log-probabilities and cross-attention equal PyTorch for decoder_input_ids [start, forced, reference…]', async () => {
    const m = await open(join(HF, name))
    const ref = genRef(name)
    const src = texts(name)
    let worstAtt = 0
    let worstLp = 0
    for (const [i, f] of ref.forced.entries()) {
      expect(m.sourceEncoder!(src[i].text).ids).toEqual(f.input_ids)
      const t = await forcedDecode(m, src[i].text, f.target)
      // The forced first token, the reference, </s>: the tokens predicted at decoder_input_ids' positions.
      expect(idsOf(m, t.tgtTokens)).toEqual([...f.decoder_input_ids.slice(1), m.spec.special.eos])
      expect(t.tokenLogProbs.every(Number.isFinite)).toBe(true)
      // Step 0 is forced (log-probability 0); every later one is the model's own.
      for (let s = 1; s < f.log_probs.length; s++) worstLp = Math.max(worstLp, Math.abs(t.tokenLogProbs[s] - f.log_probs[s]))
      const [T, L, H, S] = f.shape
      const want = floats(f.cross_attentions)
      expect(t.crossAttention).toHaveLength(T)
      for (let s = 0; s < T; s++)
        for (let l = 0; l < L; l++)
          for (let h = 0; h < H; h++)
            for (let j = 0; j < S; j++) worstAtt = Math.max(worstAtt, Math.abs(want[((s * L + l) * H + h) * S + j] - t.crossAttention![s][l][h][j]))
    }
    expect(worstLp).toBeLessThan(1e-4)
    expect(worstAtt).toBeLessThan(1e-4)
  })
})

describe('the alignment forces the target as transformers does', () => {
  it('m2m100: each target piece is read after the language token and the pieces before it, with the source between its own special tokens', async () => {
    const m = await open(join(HF, 'm2m100'))
    const ref = genRef('m2m100')
    const src = texts('m2m100')
    let worst = 0
    let compared = 0
    for (const [i, f] of ref.forced.entries()) {
      const srcWords = src[i].text.split(' ')
      const tgtWords = f.target.split(' ')
      const [p] = await pairAttentions(m, [{ src: srcWords, tgt: tgtWords }])
      // Tokenized word by word the pieces may differ from the sentence's; compare where they are the sentence's.
      const pieces = m.sourceEncoder!(src[i].text)
      const body = pieces.ids.slice(pieces.head, pieces.ids.length - pieces.tail)
      if (p.rows.length !== f.target_ids.length + 1 || p.srcSpans.at(-1)![1] + 1 !== body.length) continue
      const [, L, H, S] = f.shape
      const want = floats(f.cross_attentions)
      // Step t predicts target piece t with decoder input position t + 1 (after the start and the language token).
      for (let t = 0; t < p.rows.length; t++)
        for (let l = 0; l < L; l++)
          for (let h = 0; h < H; h++)
            for (let j = 0; j < body.length; j++)
              worst = Math.max(worst, Math.abs(want[(((t + 1) * L + l) * H + h) * S + pieces.head + j] - p.cross![t][l][h][j]))
      compared++
    }
    expect(compared).toBeGreaterThan(0)
    expect(worst).toBeLessThan(1e-4)
  })
})

describe.each(['bart', 'm2m100'])('%s decodes as generate() does under its generation_config.json', (name) => {
  const ref = genRef(name)
  const src = texts(name)
  it.each(
    ref.configs.map((c, i) => [
      i,
      JSON.stringify(Object.fromEntries(Object.entries(c.generation_config).filter(([k]) => /max_length|forced_eos|min_length|no_repeat|repetition/.test(k)))),
    ]),
  )('config %i %s: greedy and beam-4 ids equal generate()', async (i) => {
    const c = ref.configs[i as number]
    const m = await open(withGeneration(name, c.generation_config))
    const off: string[] = []
    for (const s of c.sentences) {
      const text = src.find((x) => JSON.stringify(x.input_ids) === JSON.stringify(s.input_ids))!.text
      const greedy = idsOf(m, (await translate(m, text, { beam: 1 })).tgtTokens)
      if (JSON.stringify(greedy) !== JSON.stringify(s.greedy)) off.push(`greedy ${text}: ${greedy.join(' ')} vs ${s.greedy.join(' ')}`)
      const beam = idsOf(m, (await translate(m, text, { beam: 4 })).tgtTokens)
      if (JSON.stringify(beam) !== JSON.stringify(s.beam4)) off.push(`beam ${text}: ${beam.join(' ')} vs ${s.beam4.join(' ')}`)
    }
    expect(off).toEqual([])
  })
})

describe('a folder decodes with no app repeat guard unless its config sets one', () => {
  it.each(['bart', 't5', 'm2m100'])('%s: the default decode is generate()’s, 20 of 20', async (name) => {
    const m = await open(join(HF, name))
    let same = 0
    for (const s of texts(name)) {
      const t = await translate(m, s.text)
      if (JSON.stringify(idsOf(m, t.tgtTokens)) === JSON.stringify(s.greedy)) same++
      // The forced first token (M2M100's __fr__, BART's <s>) is a tag, not a word of the text.
      const first = m.spec.generation?.forcedFirst
      if (first != null) expect(t.text.split(' ')[0]).not.toBe(m.spec.tgtVocab[first])
    }
    expect(same).toBe(20)
  })

  it('raw is plain argmax: the config’s no_repeat_ngram_size, repetition_penalty and forced_eos_token_id are off, its length limit stays', async () => {
    const c = genRef('bart').configs.find((x) => x.generation_config.repetition_penalty && x.generation_config.no_repeat_ngram_size)!
    const m = await open(withGeneration('bart', c.generation_config))
    const limit = (c.generation_config.max_length as number) - 1
    for (const s of texts('bart').slice(0, 5)) {
      const raw = idsOf(m, (await translate(m, s.text, { raw: true })).tgtTokens)
      // reference.json's greedy is generate() with none of them, up to 2·S + 10 tokens.
      expect(raw).toEqual(s.greedy.slice(0, limit))
    }
  })
})
