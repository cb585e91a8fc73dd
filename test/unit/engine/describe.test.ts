import { copyFileSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { InferenceService } from '../../../src/engine/service'
import { tempDir, tiny } from '../../helpers'

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
})
