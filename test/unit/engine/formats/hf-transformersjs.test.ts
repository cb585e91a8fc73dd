import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { AutoModelForSeq2SeqLM, env, Tensor } from '@huggingface/transformers'
import { afterAll, describe, expect, it } from 'vitest'
import { translate } from '../../../../src/engine/decode'
import { LoadedModel } from '../../../../src/engine/model'
import { ROOT } from '../../../helpers'

/**
 * An independent client: transformers.js (@huggingface/transformers, offline, the local folder)
 * decodes the same files greedily, and its ids must be Attention Lens's. transformers.js loads
 * only a merged decoder, so the two folders that have one are run: Marian in its own layout
 * (onnx/), M2M100 in Optimum's (the folder itself).
 */
const HF = join(ROOT, 'test', 'fixtures', 'hf')
env.allowRemoteModels = false
env.allowLocalModels = true
env.localModelPath = HF + '/'

const opened: LoadedModel[] = []
afterAll(async () => {
  for (const m of opened) await m.release()
})

describe.each([
  ['marian', 'onnx'],
  ['m2m100', ''],
])('transformers.js on the %s folder', (name, subfolder) => {
  it('gives the greedy ids Attention Lens gives, 20 of 20', async () => {
    const ref = JSON.parse(readFileSync(join(HF, name, 'reference.json'), 'utf8')) as { sentences: { text: string; input_ids: number[] }[] }
    const tjs = await AutoModelForSeq2SeqLM.from_pretrained(name, { subfolder, dtype: 'fp32', local_files_only: true })
    const lens = await LoadedModel.open(join(HF, name))
    opened.push(lens)
    const index = new Map(lens.spec.tgtVocab.map((p, i) => [p, i]))
    const differ: string[] = []
    for (const s of ref.sentences) {
      const ids = lens.sourceEncoder!(s.text).ids
      const n = ids.length
      const out = (await tjs.generate({
        inputs: new Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, n]),
        attention_mask: new Tensor('int64', new BigInt64Array(n).fill(1n), [1, n]),
        // The app's step limit; no forced </s> at the limit, no repeat rules (as Attention Lens with its guards off).
        max_new_tokens: 2 * n + 10,
        num_beams: 1,
        do_sample: false,
        no_repeat_ngram_size: 0,
        repetition_penalty: 1,
        forced_eos_token_id: null,
      } as Record<string, unknown>)) as Tensor
      const theirs = Array.from(out.data as BigInt64Array, Number).slice(1)
      const ours = (await translate(lens, s.text, { beam: 1, noRepeatNgram: 0, maxRepeat: 0 })).tgtTokens.map((t) => index.get(t) ?? -1)
      if (JSON.stringify(theirs) !== JSON.stringify(ours)) differ.push(`${s.text}: ${theirs.join(' ')} | ${ours.join(' ')}`)
    }
    await tjs.dispose()
    expect(differ).toEqual([])
  })
})
