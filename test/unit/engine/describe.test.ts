import { copyFileSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkContract } from '../../../src/engine/contract'
import { describeModel } from '../../../src/engine/formats'
import { readModelFile } from '../../../src/engine/formats/model-bytes'
import { InferenceService } from '../../../src/engine/service'
import { BUNDLED_MODELS, editedModel, tempDir, tiny } from '../../helpers'

describe('describing a model file for the picker', () => {
  it('reads a file again only when it changed', async () => {
    const path = join(tempDir(), 'm.onnx')
    copyFileSync(tiny('bahdanau'), path)
    // A whole second, which setting the time back below reproduces exactly.
    const when = Math.floor(Date.now() / 1000) - 60
    utimesSync(path, when, when)
    const s = new InferenceService()
    expect((await s.describe(path)).attention).toBe('bahdanau')
    // Unchanged (same size and modification time): not read again. The bytes under it are now
    // garbage of the same length, so a second read would fail.
    writeFileSync(path, Buffer.alloc(statSync(path).size, 0x5a))
    utimesSync(path, when, when)
    expect((await s.describe(path)).attention).toBe('bahdanau')
    // Changed: read again.
    copyFileSync(tiny('local-p'), path)
    utimesSync(path, new Date(), new Date(Date.now() + 5000))
    expect((await s.describe(path)).attention).toBe('local-p')
  })

  it("reads the graph and the metadata, not the weights: each bundled model's spec as the whole file's check gives it", async () => {
    const files = readdirSync(BUNDLED_MODELS).filter((f) => f.endsWith('.onnx'))
    expect(files.length).toBeGreaterThan(10)
    for (const f of files) {
      const path = join(BUNDLED_MODELS, f)
      expect(await describeModel(path), f).toEqual(checkContract(await readModelFile(path)))
    }
  })

  it('lists a model whose weights hold NaN (they are not read), and opening it refuses it for them', async () => {
    const nan = editedModel(tiny('bahdanau'), (m) => {
      const w = m.graph!.initializer.find((t) => t.name === 'model.init.weight')!
      const f = new Float32Array(Uint8Array.from(w.rawData).buffer)
      f[3] = NaN
      w.rawData = new Uint8Array(f.buffer)
    })
    const s = new InferenceService()
    expect((await s.describe(nan)).attention).toBe('bahdanau')
    await expect(s.open(nan)).rejects.toThrow('The model\'s weights contain NaN or infinite values (in "model.init.weight").')
  })

  it('refuses a file that is no ONNX model in the words opening it does', async () => {
    const path = join(tempDir(), 'garbage.onnx')
    writeFileSync(path, Buffer.alloc(4096, 0x5a))
    const s = new InferenceService()
    const said = await s.open(path).then(
      () => '',
      (e: Error) => e.message,
    )
    expect(said).toMatch(/^The file is not an ONNX model: /)
    await expect(s.describe(path)).rejects.toThrow(said)
  })
})
