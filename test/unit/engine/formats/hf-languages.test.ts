import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import * as ort from '../../../../src/engine/onnxruntime'
import { translate } from '../../../../src/engine/decode'
import { LoadedModel } from '../../../../src/engine/model'
import { withLanguages } from '../../../../src/engine/formats'
import { languagePair, matchingCodes, resolveLanguage } from '../../../../src/engine/formats/hf/languages'
import { languageLabel, pairLabel, sideLabel, typedLanguage } from '../../../../src/shared/language-names'
import { checkFile } from '../../../../src/engine/check'
import { ROOT } from '../../../helpers'

/** Languages of Hugging Face folders (issue 39 items 4 and 5): codes as models name them, by ISO code or name, refusals that name what matches. */
const HF = join(ROOT, 'test', 'fixtures', 'hf')
// A few of NLLB-200's FLORES codes, mBART-50's and M2M100's (as the folder reads __en__: en).
const NLLB = ['ace_Arab', 'afr_Latn', 'arb_Arab', 'deu_Latn', 'eng_Latn', 'est_Latn', 'eus_Latn', 'fra_Latn', 'yue_Hant', 'zho_Hans', 'zho_Hant', 'zul_Latn']
const MBART = ['ar_AR', 'cs_CZ', 'de_DE', 'en_XX', 'es_XX', 'fr_XX', 'zh_CN']
const M2M = ['af', 'de', 'en', 'fr', 'zh']

describe('a language asked for maps to the model’s own code', () => {
  it.each([
    ['en', NLLB, 'eng_Latn'],
    ['en', MBART, 'en_XX'],
    ['en', M2M, 'en'],
    ['__en__', M2M, 'en'],
    ['eng', NLLB, 'eng_Latn'],
    ['fr', NLLB, 'fra_Latn'],
    ['French', NLLB, 'fra_Latn'],
    ['french', MBART, 'fr_XX'],
    ['zh', NLLB, 'zho_Hans'],
    ['zh', MBART, 'zh_CN'],
    ['ar', NLLB, 'arb_Arab'],
    ['de', M2M, 'de'],
    ['eng_Latn', NLLB, 'eng_Latn'],
    ['zho_Hant', NLLB, 'zho_Hant'],
  ])('%s on %j → %s', (asked, codes, want) => {
    expect(resolveLanguage(asked, codes, 'source', 'the model')).toBe(want)
  })

  it('an unknown one is refused with the codes that match it, by name, not the first codes of the list', () => {
    // A typo of NLLB's English: the English code is offered, not ace_Arab, afr_Latn….
    expect(() => resolveLanguage('eng_Latm', NLLB, 'source', 'nllb')).toThrow(
      /nllb has no source language "eng_Latm"; the codes that match it: English \(eng_Latn\)\./,
    )
    expect(matchingCodes('e', NLLB)).toEqual(['eng_Latn', 'est_Latn', 'eus_Latn'])
    // English on a model without it: nothing matches, and the message says how codes may be given.
    expect(() => resolveLanguage('en', ['fra_Latn', 'deu_Latn'], 'target', 'x')).toThrow(
      /x has no target language "en"; it knows 2 languages \(French \(fra_Latn\), German \(deu_Latn\)\)/,
    )
    expect(languageLabel('fra_Latn')).toBe('French (fra_Latn)')
    expect(languageLabel('en_XX')).toBe('English (en_XX)')
  })

  it('the app’s picker takes a label as listed, a code or a name', () => {
    expect(['French (fra_Latn)', 'fra_Latn', ' fr ', 'French', 'Chinese (zho_Hant) ', 'two words', ''].map(typedLanguage)).toEqual([
      'fra_Latn',
      'fra_Latn',
      'fr',
      'French',
      'zho_Hant',
      null,
      null,
    ])
  })
})

const vocabOf = (pieces: string[]) => new Map(pieces.map((p, i) => [p, i]))
const base = { name: 'model', nameOrPath: '', asked: {} }

describe('the pair a folder translates', () => {
  it('a multilingual folder whose tokenizer_config names no languages opens with a stand-in pair and asks for one', () => {
    const vocab = vocabOf(['<s>', '</s>', ...NLLB])
    const p = languagePair({ ...base, vocab, modelType: 'm2m_100', tokConfig: { src_lang: null, tgt_lang: null } })
    expect(p.needsLanguages).toBe(true)
    expect(p.srcLang).toBe('eng_Latn')
    const chosen = languagePair({
      ...base,
      vocab,
      modelType: 'm2m_100',
      tokConfig: { src_lang: null, tgt_lang: null },
      asked: { srcLang: 'en', tgtLang: 'de' },
    })
    expect(chosen).toMatchObject({
      needsLanguages: false,
      srcLang: 'eng_Latn',
      tgtLang: 'deu_Latn',
      sourceToken: vocab.get('eng_Latn'),
      forcedFirst: vocab.get('deu_Latn'),
    })
  })

  it('a bilingual model refuses a pair it was not trained for, and takes its own by any of its codes', () => {
    const vocab = vocabOf(['<pad>', '</s>', '▁a'])
    const f = { ...base, name: 'opus-mt-en-fr', vocab, modelType: 'marian', tokConfig: { source_lang: 'en', target_lang: 'fr' } }
    expect(() => languagePair({ ...f, asked: { srcLang: 'en', tgtLang: 'de' } })).toThrow(
      /opus-mt-en-fr translates en → fr only .* it was not trained for en → de/,
    )
    expect(languagePair({ ...f, asked: { srcLang: 'eng', tgtLang: 'French' } })).toMatchObject({ srcLang: 'en', tgtLang: 'fr', sourceToken: null })
  })

  it('a multi-target opus-mt offers its >>xx<< targets, put before the source', () => {
    const vocab = vocabOf(['<pad>', '</s>', '>>fra<<', '>>por<<', '>>spa<<', '▁a'])
    const p = languagePair({
      ...base,
      name: 'opus-mt-en-roa',
      vocab,
      modelType: 'marian',
      tokConfig: { source_lang: 'en' },
      asked: { srcLang: 'en', tgtLang: 'pt' },
    })
    expect(p).toMatchObject({ srcLang: 'en', tgtLang: 'por', sourceToken: vocab.get('>>por<<'), forcedFirst: null, targetLanguages: ['fra', 'por', 'spa'] })
    expect(() => languagePair({ ...base, name: 'opus-mt-en-roa', vocab, modelType: 'marian', tokConfig: {}, asked: { srcLang: 'en', tgtLang: 'de' } })).toThrow(
      /has no target language "de"/,
    )
  })
})

describe('languages on the fixture folders', () => {
  const opened: LoadedModel[] = []
  const temps: string[] = []
  afterAll(async () => {
    for (const m of opened) await m.release()
    for (const d of temps) rmSync(d, { recursive: true, force: true })
  })
  const open = async (path: string) => {
    const m = await LoadedModel.open(path)
    opened.push(m)
    return m
  }
  const ref = JSON.parse(readFileSync(join(HF, 'm2m100', 'reference.json'), 'utf8')) as { sentences: { text: string; greedy: number[] }[] }

  it('BART (English only, no language tokens) names no pair: the app shows none rather than und→und', async () => {
    const bart = (await open(join(HF, 'bart'))).spec
    const marian = (await open(join(HF, 'marian'))).spec
    expect(pairLabel(bart.srcLang, bart.tgtLang)).toBeNull()
    expect(sideLabel('Source', bart.srcLang)).toBe('Source')
    expect(pairLabel(marian.srcLang, marian.tgtLang)).toBe('en→fr')
    expect(sideLabel('Translation', marian.tgtLang)).toBe('Translation (fr)')
  })

  it('marian (en→fr): --src-lang en --tgt-lang de is refused, en→fr opens', async () => {
    await expect(LoadedModel.open(withLanguages(join(HF, 'marian'), 'en', 'de'))).rejects.toThrow(/translates en → fr only/)
    const m = await open(withLanguages(join(HF, 'marian'), 'en', 'fr'))
    expect([m.spec.srcLang, m.spec.tgtLang]).toEqual(['en', 'fr'])
  })

  it('a multi-target opus-mt folder (>>fra<< tokens in vocab.json) offers its targets and puts the chosen one before the source', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'al-multi-'))
    temps.push(dir)
    cpSync(join(HF, 'marian'), dir, { recursive: true })
    // Two pieces of the shared vocabulary renamed to target tokens, as opus-mt-en-ROMANCE has them.
    const vocab = JSON.parse(readFileSync(join(dir, 'vocab.json'), 'utf8')) as Record<string, number>
    const [a, b] = Object.keys(vocab).slice(-2)
    const ids = { fra: vocab[a], por: vocab[b] }
    delete vocab[a]
    delete vocab[b]
    writeFileSync(join(dir, 'vocab.json'), JSON.stringify({ ...vocab, '>>fra<<': ids.fra, '>>por<<': ids.por }))
    const m = await open(dir)
    expect(m.spec.targetLanguages).toEqual(['fra', 'por'])
    expect([m.spec.srcLang, m.spec.tgtLang]).toEqual(['en', 'fra'])
    expect(m.sourceEncoder!('A dog.').ids[0]).toBe(ids.fra)
    const pt = await open(withLanguages(dir, 'en', 'Portuguese'))
    expect(pt.spec.tgtLang).toBe('por')
    expect(pt.sourceEncoder!('A dog.').ids[0]).toBe(ids.por)
    expect((await translate(pt, 'A dog.', { raw: true })).srcTokens[0]).toBe('>>por<<')
    await expect(LoadedModel.open(withLanguages(dir, 'en', 'de'))).rejects.toThrow(/has no target language "de"/)
  })

  it('m2m100 with null src_lang/tgt_lang opens, asks for the pair, and decodes as PyTorch once given en → fr by ISO-639-3 codes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'al-langs-'))
    temps.push(dir)
    cpSync(join(HF, 'm2m100'), dir, { recursive: true })
    const tc = JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8')) as Record<string, unknown>
    writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ ...tc, src_lang: null, tgt_lang: null }))
    // No sessions for the folder without a pair: the pair's open makes its own (browser mode made
    // NLLB-600M's twice, 25 s each at load 8, and held both).
    const create = vi.spyOn(ort.InferenceSession, 'create')
    const m = await open(dir)
    expect(m.spec.needsLanguages).toBe(true)
    expect(create).not.toHaveBeenCalled()
    await expect(m.step.run({})).rejects.toThrow(/names no language pair/)
    await expect(translate(m, ref.sentences[0].text)).rejects.toThrow(/names no language pair .* --src-lang and --tgt-lang .* English \(en\)/)
    const report = await checkFile(dir)
    expect(report.fatal).toEqual([])
    expect(report.pairNeeded).toMatch(/--src-lang and --tgt-lang/)
    const chosen = await open(withLanguages(dir, 'eng', 'fra'))
    expect(create).toHaveBeenCalled()
    create.mockRestore()
    expect(chosen.spec.needsLanguages).toBeUndefined()
    expect([chosen.spec.srcLang, chosen.spec.tgtLang]).toEqual(['en', 'fr'])
    const t = await translate(chosen, ref.sentences[0].text, { raw: true })
    const index = new Map(chosen.spec.tgtVocab.map((p, i) => [p, i]))
    expect(t.tgtTokens.map((x) => index.get(x))).toEqual(ref.sentences[0].greedy)
  })
})
