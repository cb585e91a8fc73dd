import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { LoadedModel } from '../../../src/main/engine/model'
import { InferenceService } from '../../../src/main/engine/service'
import { BUNDLED_MODELS, FIXTURE_MODELS, ROOT } from '../../helpers'

interface ParityCase {
  source: string
  src_ids: number[]
  tgt_ids: number[]
  attention?: number[][]
  position?: number[]
}

const dir = join(ROOT, 'test', 'fixtures', 'parity')
const fixtures = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => {
    const name = f.replace(/\.json$/, '')
    const model = [join(BUNDLED_MODELS, `${name}.onnx`), join(FIXTURE_MODELS, `${name}.onnx`)].find(existsSync)
    return { name, model, cases: (JSON.parse(readFileSync(join(dir, f), 'utf8')) as { cases: ParityCase[] }).cases }
  })

const service = new InferenceService()
afterAll(() => service.closeAll())

describe('ONNX (onnxruntime-node) reproduces PyTorch', () => {
  it('every parity fixture has its model file', () => {
    expect(fixtures.filter((f) => !f.model).map((f) => f.name)).toEqual([])
  })
  describe.each(fixtures)('$name', ({ model, cases }) => {
    it.each(cases)('$source', async (c) => {
      const t = await service.translate(model!, c.source)
      const { spec } = await LoadedModel.open(model!)
      // Same tokens: PyTorch's ids stop before </s>, the engine's list ends with it.
      const expected = c.tgt_ids.map((id) => spec.tgtVocab[id])
      if (t.tgtTokens.length > c.tgt_ids.length) expected.push('</s>')
      expect(t.tgtTokens).toEqual(expected)
      if (c.attention) {
        expect(t.attention.length).toBe(c.attention.length)
        c.attention.forEach((row, i) => row.forEach((w, s) => expect(Math.abs(t.attention[i][s] - w)).toBeLessThan(1e-4)))
      }
      if (c.position) c.position.forEach((p, i) => expect(Math.abs(t.positions![i] - p)).toBeLessThan(1e-4))
    })
  })
})
