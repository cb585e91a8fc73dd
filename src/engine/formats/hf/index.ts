import { existsSync } from 'node:fs'
import { stat } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { ContractError, shown, type ModelSpec } from '../../contract'
import { pairQuestion } from '../../../shared/language-names'
import { checkMemory, MemoryError, memoryShortfall, sizeText } from '../../memory'
import { checkExternalData, readSlimModel, type SlimModel } from '../model-bytes'
import { createAll, sessionOptions, rearrangesExactly, withProvider, type ModelSource } from '../ort-sessions'
import type { ModelFormat, OpenedModel, OpenOptions, PartSession, SourceEncoder } from '../types'
import { decodingRules } from './generation'
import { languagePair } from './languages'
import { HfEncoderPart, HfStepPart, type DecoderSessions } from './parts'
import { decodersToRun } from './decoders'
import { int, readJson, type Json } from './folder-json'
import { folderSourceEncoder, ownSpecials, pieceTable, readTokenizer } from './folder-tokenizer'
import { cacheKey, cachedEntry, commitEntry, dropPending } from './tap-cache'
import { chooseVariant, folderVariants, PART_FILE, partFiles, type PartFiles, type Variant } from './variants'

/**
 * A Hugging Face encoder-decoder folder as Optimum (`optimum-cli export onnx`) and transformers.js
 * write it: config.json, the tokenizer (tokenizer.json, or Marian's source.spm + target.spm +
 * vocab.json), and encoder_model.onnx with decoder_model.onnx + decoder_with_past_model.onnx or
 * decoder_model_merged.onnx, in the folder or in onnx/. Opened as it is: the cross-attention is
 * the decoder's `cross_attentions.{i}` outputs where it has them, else read from its Softmax
 * nodes (taps.ts); the KV cache becomes the engine's opaque state (parts.ts).
 */
export const hfFolder: ModelFormat = {
  id: 'hf-seq2seq',
  match: async (path) => (await folderOf(path)) !== null,
  describe: async (path, opts) => (await readFolder(path, opts)).spec,
  open: openChosen,
}

/** The folder a path belongs to: a folder holding config.json, or one of such a folder's .onnx files (beside it or in its onnx/). */
export async function folderOf(path: string): Promise<string | null> {
  const info = await stat(path).catch(() => null)
  if (!info) return null
  if (info.isDirectory()) return existsSync(join(path, 'config.json')) ? path : null
  if (!PART_FILE.test(basename(path))) return null
  const dir = dirname(path)
  if (existsSync(join(dir, 'config.json'))) return dir
  if (basename(dir) === 'onnx' && existsSync(join(dirname(dir), 'config.json'))) return dirname(dir)
  return null
}

const DECODER_ONLY = /gpt|llama|mistral|qwen|phi|gemma|opt|bloom|falcon|mpt|codegen|gptj|gpt_neox/i

export interface Folder {
  dir: string
  name: string
  config: Json
  files: PartFiles
  /** The precision opened, and every one the folder has (variants.ts). */
  variant: Variant
  variants: Variant[]
  spec: ModelSpec
  sourceEncoder: SourceEncoder
  forcedFirst: number | null
  headDim: number
  tokenizerNote: string
}

/** The folder's config, files, tokenizer and spec, read without opening a session. */
export async function readFolder(path: string, opts: OpenOptions = {}): Promise<Folder> {
  const dir = await folderOf(path)
  if (!dir) throw new ContractError(`${path} is not a Hugging Face model folder (no config.json).`)
  const config = await readJson(join(dir, 'config.json'), 'config.json')
  const modelType = String(config.model_type ?? '')
  const archs = Array.isArray(config.architectures) ? (config.architectures as unknown[]).join(', ') : ''
  const v = folderVariants(dir)
  if (config.is_encoder_decoder !== true) {
    const decoderOnly =
      /CausalLM|LMHeadModel/.test(archs) ||
      DECODER_ONLY.test(modelType) ||
      (v.length === 0 && existsSync(join(dir, 'onnx', 'model.onnx')) && /decoder/i.test(archs))
    throw new ContractError(
      decoderOnly
        ? `The folder holds a decoder-only model (${shown(modelType || archs)}): it has no encoder, so no cross-attention for this app to show; Attention Lens opens encoder-decoder models (Marian, BART, T5, M2M100…).`
        : `The folder holds an encoder-only model (${shown(modelType || archs)}, no decoder): it translates nothing, so there is no cross-attention for this app to show; Attention Lens opens encoder-decoder models (Marian, BART, T5, M2M100…).`,
    )
  }
  // The precision: the one asked for (the app's choice or --dtype, then the file the path names), else the most precise that fits (variants.ts).
  const m = PART_FILE.exec(basename(path))
  const chosen = chooseVariant(v, opts.dtype ? { dtype: opts.dtype } : m ? { suffix: m[2] ?? '' } : {})
  const variant = chosen?.suffix ?? (m ? (m[2] ?? '') : '')
  const files = chosen?.files ?? partFiles(dir, variant)
  if (!files || !chosen) {
    throw new ContractError(
      `The folder has no encoder_model${variant}.onnx with decoder_model${variant}.onnx or decoder_model_merged${variant}.onnx (in it or in onnx/): export it with optimum-cli export onnx --model … --task text2text-generation-with-past.`,
    )
  }
  const generation = existsSync(join(dir, 'generation_config.json')) ? await readJson(join(dir, 'generation_config.json'), 'generation_config.json') : {}
  const tokConfig = existsSync(join(dir, 'tokenizer_config.json')) ? await readJson(join(dir, 'tokenizer_config.json'), 'tokenizer_config.json') : {}

  const layers = int(config.decoder_layers, config.num_decoder_layers, config.num_layers)
  const heads = int(config.decoder_attention_heads, config.num_heads)
  const dModel = int(config.d_model, config.hidden_size)
  if (!layers || !heads || !dModel)
    throw new ContractError(
      "The folder's config.json lacks the decoder layers, heads or d_model this app reads (decoder_layers / num_decoder_layers, decoder_attention_heads / num_heads, d_model).",
    )
  const headDim = int(config.d_kv) ?? dModel / heads
  const pad = int(generation.pad_token_id, config.pad_token_id) ?? 0
  const eos = int(generation.eos_token_id, config.eos_token_id)
  if (eos === null) throw new ContractError("The folder's config.json has no eos_token_id.")
  const start = int(generation.decoder_start_token_id, config.decoder_start_token_id) ?? pad
  const bad = ((generation.bad_words_ids ?? config.bad_words_ids ?? []) as unknown[]).flatMap((w) =>
    Array.isArray(w) && w.length === 1 && Number.isInteger(w[0]) ? [w[0] as number] : [],
  )
  const vocabSize = int(config.vocab_size) ?? 0

  const tokenizer = await readTokenizer(dir)
  const { vocab } = tokenizer
  const pieces = pieceTable(vocab, vocabSize)
  const unk = vocab.get(String(tokConfig.unk_token ?? '<unk>')) ?? int((tokenizer.src.json.model as Json)?.unk_id) ?? pad

  // Languages (languages.ts): a multilingual model's codes, a multi-target opus-mt's targets, or a bilingual model's own pair.
  const pair = languagePair({ vocab, modelType, name: basename(dir), nameOrPath: String(config._name_or_path ?? ''), tokConfig, asked: opts })
  const { srcLang, tgtLang } = pair
  const rules = decodingRules(existsSync(join(dir, 'generation_config.json')) ? generation : config, pair.forcedFirst)
  const forcedFirst = rules.forcedFirst
  // A multilingual model's language token before the text, else the tokenizer's own special tokens around it.
  const around = pair.sourceToken !== null ? { prefix: [pair.sourceToken], suffix: [eos] } : (ownSpecials(tokenizer) ?? { prefix: [], suffix: [eos] })
  const sourceEncoder = folderSourceEncoder(tokenizer, pieces, unk, around.prefix, around.suffix)
  const name = basename(dir)
  const spec: ModelSpec = {
    task: 'translation',
    name,
    attention: 'transformer',
    windowD: 0,
    localScore: null,
    srcLang,
    tgtLang,
    srcVocab: pieces,
    tgtVocab: pieces,
    srcTokenizer: tokenizer.src,
    tgtTokenizer: tokenizer.tgt,
    special: { pad, unk, bos: start, eos },
    stateSize: 2 * layers * heads * headDim,
    trainingData: '',
    licence: String(config.license ?? ''),
    testScore: null,
    stepOutputs: ['logits', 'next_state', 'attention', 'cross_attention'],
    heads: { layers, heads },
    maxTarget: int(config.max_position_embeddings, config.max_target_positions) ?? null,
    forecast: null,
    forecastScore: null,
    neverGenerate: bad,
    ...(pair.languages ? { languages: pair.languages } : {}),
    ...(pair.targetLanguages ? { targetLanguages: pair.targetLanguages } : {}),
    ...(pair.needsLanguages ? { needsLanguages: true } : {}),
    generation: rules,
    variants: v.map(({ dtype, bytes, note }) => ({ dtype, bytes, note })),
    dtype: chosen.dtype,
  }
  return { dir, name, config, files, variant: chosen, variants: v, spec, sourceEncoder, forcedFirst, headDim, tokenizerNote: tokenizer.note }
}

/**
 * The folder's files read without their weights, refused before any session is made where the
 * external data they name is missing or cut short, or where the whole will not fit in memory.
 */
async function readParts(f: Folder, pastFile: string | null): Promise<{ encoder: SlimModel; first: SlimModel; past: SlimModel | null }> {
  const read = async (path: string) => {
    const slim = await readSlimModel(path, basename(path))
    checkExternalData(slim, basename(path))
    return slim
  }
  const encoder = await read(f.files.encoder)
  const first = await read(f.files.first)
  const past = pastFile ? await read(pastFile) : null
  const total = encoder.bytesOnDisk + first.bytesOnDisk + (past?.bytesOnDisk ?? 0)
  const others = f.variants.filter((v) => v !== f.variant && v.bytes < total)
  try {
    checkMemory(`The folder's ${f.variant.dtype} model`, total)
  } catch (e) {
    if (!(e instanceof ContractError) || !others.length) throw e
    throw new MemoryError(
      `${e.message.replace(/ \(q8 is about 4× smaller\)\.$/, '.')} The folder also has ${others.map((v) => `${v.dtype} (${sizeText(v.bytes)})`).join(', ')}.`,
    )
  }
  return { encoder, first, past }
}

/**
 * The default variant opened, or, where its files turn out larger than memory allows once its
 * graphs are read (external data whose names do not carry the file's, as torch writes one file per
 * tensor: choosing counted only the files named after each part), the next most precise one that
 * fits. A variant asked for (--dtype, or a file of the folder) is refused instead.
 */
async function openChosen(path: string, provider: string, opts: OpenOptions = {}): Promise<OpenedModel & { sourceEncoder: SourceEncoder }> {
  try {
    return await openFolder(path, provider, opts)
  } catch (e) {
    if (!(e instanceof MemoryError) || opts.dtype || PART_FILE.test(basename(path))) throw e
    const all = folderVariants((await folderOf(path))!)
    const tried = all.findIndex((v) => memoryShortfall(v.bytes) === null)
    for (const v of all.slice(tried + 1)) {
      try {
        return await openFolder(path, provider, { ...opts, dtype: v.dtype })
      } catch (next) {
        if (!(next instanceof MemoryError)) throw next
      }
    }
    throw e
  }
}

/**
 * A multilingual folder that names no language pair, opened without one: it decodes nothing until
 * a pair is chosen (decode.ts askPair), and the pair's open makes its own sessions, so none are made
 * here. Making them took NLLB-600M q8 25 s of a 30 s open at load 8, and browser mode made them
 * again at once for the pair the page asked for, holding both models meanwhile.
 */
function pairless(f: Folder, provider: string): OpenedModel & { sourceEncoder: SourceEncoder } {
  const part: PartSession = {
    inputNames: [],
    outputNames: [],
    inputMetadata: [],
    run: () => Promise.reject(new ContractError(pairQuestion(f.spec.name, f.spec.languages ?? f.spec.targetLanguages ?? []))),
    release: () => Promise.resolve(),
  }
  return {
    spec: f.spec,
    encoder: part,
    step: part,
    greedy: null,
    keys: [],
    note: null,
    provider,
    providerNote: null,
    format: hfFolder.id,
    beamRule: 'transformers',
    sourceEncoder: f.sourceEncoder,
    details: [`Hugging Face ${String(f.config.model_type ?? 'encoder-decoder')} folder naming no language pair: its sessions are made once one is chosen`],
  }
}

async function openFolder(path: string, provider: string, opts: OpenOptions = {}): Promise<OpenedModel & { sourceEncoder: SourceEncoder }> {
  const started = performance.now()
  const f = await readFolder(path, opts)
  if (f.spec.needsLanguages) return pairless(f, provider)
  const folderRead = performance.now()
  const L = f.spec.heads!.layers
  const pastFile = f.files.past && f.files.past !== f.files.first ? f.files.past : null
  const slim = await readParts(f, pastFile)
  // A folder opened before (by its decoders' graphs, not their paths: tap-cache.ts): its tapped graphs, kept in the cache.
  const key = cacheKey([slim.first.bytes, slim.past?.bytes ?? null])
  const entry = await cachedEntry(key)
  const { first, past, tapped, unwritten } = await decodersToRun({ dir: f.dir, files: f.files, variant: f.variant, layers: L }, slim, pastFile, key, entry)
  // The encoder too is handed over as its graph alone, its weights read by onnxruntime from where they lie: a
  // single-file encoder is then never held whole as a protobuf beside its tensors.
  const graphsRead = performance.now()
  const parts: ModelSource[] = [{ bytes: slim.encoder.bytes, dir: slim.encoder.dir }, first.load, ...(past ? [past.load] : [])]
  const {
    made,
    provider: used,
    note,
  } = await withProvider(
    provider,
    async (p) => {
      // The encoder runs once a translation, and so does the first decoder where a with-past graph takes
      // the later steps (a folder's with-past decoder, or the merged decoder's lifted branch: split.ts).
      const once = sessionOptions(p, rearrangesExactly(f.variant.dtype) ? 'once' : 'steps')
      const steps = sessionOptions(p)
      const [encoder, firstS, pastS] = await createAll(parts, [once, past ? once : steps, ...(past ? [steps] : [])])
      const d: DecoderSessions = { first: firstS, past: pastS ?? (f.files.merged ? firstS : null), merged: f.files.merged, cross: first.cross }
      return {
        encoder: new HfEncoderPart(encoder),
        step: new HfStepPart(d, { layers: L, heads: f.spec.heads!.heads, headDim: f.headDim, forcedFirst: f.forcedFirst }),
      }
    },
    (reason) => new ContractError(`onnxruntime could not load the folder's ${f.variant.dtype} model: ${reason}.`),
  ).catch(async (e: unknown) => {
    await dropPending(tapped)
    throw e
  })
  // An entry holds every tapped decoder or none: one without the with-past decoder would open the
  // folder again without its KV cache.
  const kept = tapped.length && !unwritten ? await commitEntry(key, tapped, { cross: first.cross, where: first.where }) : false
  if (!kept) await dropPending(tapped)
  const s = (from: number, to: number) => `${((to - from) / 1000).toFixed(1)} s`
  const done = performance.now()
  const rel = (p: string) => p.slice(f.dir.length + 1)
  return {
    spec: f.spec,
    ...made,
    greedy: null,
    keys: [],
    note: null,
    provider: used,
    providerNote: note,
    format: hfFolder.id,
    beamRule: 'transformers',
    sourceEncoder: f.sourceEncoder,
    details: [
      `Hugging Face ${String(f.config.model_type ?? 'encoder-decoder')} folder: ${rel(f.files.encoder)}, ${rel(f.files.first)}${f.files.past && !f.files.merged ? `, ${rel(f.files.past)}` : ''}`,
      `decoder ${L} layers × ${f.spec.heads!.heads} heads; attention from ${first.where}`,
      `tokenizer: ${f.tokenizerNote}; decoding starts from id ${f.spec.special.bos}${f.forcedFirst !== null ? `, first token forced to ${f.forcedFirst} ("${f.spec.tgtVocab[f.forcedFirst]}")` : ''}`,
      f.files.past ? `KV cache: yes; ${made.step.runs}` : 'KV cache: no (decoder_with_past_model.onnx missing): every step runs the whole prefix again',
      'what-if: unavailable (the graph has no inputs to put weights into its attention)',
      `decoder as run: ${entry ? `tapped before, from the cache (${dirname(entry.files[0])})` : kept ? 'tapped now (kept in the cache for the next open)' : tapped.length || typeof first.load !== 'string' ? 'tapped now' : 'as exported'}`,
      `opened in ${s(started, done)}: config and tokenizer ${s(started, folderRead)}, graphs read${entry ? '' : ' and tapped'} ${s(folderRead, graphsRead)}, onnxruntime sessions ${s(graphsRead, done)}`,
      `precision: ${f.variant.dtype} (${sizeText(slim.encoder.bytesOnDisk + slim.first.bytesOnDisk + (slim.past?.bytesOnDisk ?? 0))} of files${
        f.variants.length > 1
          ? `; the folder also has ${f.variants
              .filter((v) => v !== f.variant)
              .map((v) => v.dtype)
              .join(', ')}`
          : ''
      })`,
    ],
  }
}
