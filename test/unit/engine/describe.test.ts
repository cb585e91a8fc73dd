import { copyFileSync, utimesSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { InferenceService } from '../../../src/engine/service'
import { tempDir, tiny } from '../../helpers'

describe('describing a model file for the picker', () => {
  it('reads a file again only when it changed', async () => {
    const path = join(tempDir(), 'm.onnx')
    copyFileSync(tiny('bahdanau'), path)
    const s = new InferenceService()
    expect((await s.describe(path)).attention).toBe('bahdanau')
    copyFileSync(tiny('local-p'), path)
    utimesSync(path, new Date(), new Date(Date.now() + 5000))
    expect((await s.describe(path)).attention).toBe('local-p')
  })
})
