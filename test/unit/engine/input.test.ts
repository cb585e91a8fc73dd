import { afterAll, describe, expect, it } from 'vitest'
import { MAX_SOURCE_TOKENS, maxTargetLength } from '../../../src/engine/decode'
import { InferenceService } from '../../../src/engine/service'
import { tiny } from '../../helpers'

const service = new InferenceService()
afterAll(() => service.closeAll())

describe('any text a person can type', () => {
  it.each([
    ['empty', ''],
    ['whitespace only', '   \t\n  '],
    ['emoji', 'A dog 🐶 runs 🏃‍♂️ on the 🏖️.'],
    ['right-to-left', 'مرحبا بالعالم שלום עולם'],
    ['control and zero-width characters', 'A\u0000 dog\u200b runs\u0007 on\u202e the\ufeff grass.'],
    ['mixed scripts', 'A 小狗 runs на траве near the Straße.'],
    ['unknown words', 'Zyxxqu plonkfest wibbled the quorple.'],
  ])('%s: decodes, within the length limit', async (_name, text) => {
    const t = await service.translate(tiny('bahdanau'), text)
    expect(t.srcTokens.at(-1)).toBe('</s>')
    expect(t.tgtTokens.length).toBeLessThanOrEqual(maxTargetLength(t.srcTokens.length))
    expect(t.attention).toHaveLength(t.tgtTokens.length)
    expect(t.truncated).toBe(false)
  })

  it('10,000 characters: cut to the first tokens, and the result says so', async () => {
    const text = 'a dog runs on the beach '.repeat(420).slice(0, 10_000)
    const t = await service.translate(tiny('bahdanau'), text)
    expect(t.truncated).toBe(true)
    expect(t.srcTokens).toHaveLength(MAX_SOURCE_TOKENS + 1)
    expect(t.tgtTokens.length).toBeLessThanOrEqual(maxTargetLength(MAX_SOURCE_TOKENS + 1))
  })

  it('words the vocabulary lacks are marked as unknown', async () => {
    const t = await service.translate(tiny('bahdanau'), 'The quorple dog.')
    expect(t.srcUnknown[1]).toBe(true)
    expect(t.srcUnknown[2]).toBe(false)
  })
})
