import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SettingsStore } from '../../../src/host/settings-store'
import { tempDir } from '../../helpers'

describe('settings file', () => {
  it('is written atomically and read back', async () => {
    const dir = tempDir()
    const store = new SettingsStore(join(dir, 'settings.json'))
    await store.save({ recent: ['/a/b.onnx'], provider: 'webgpu' })
    expect(readdirSync(dir)).toEqual(['settings.json'])
    expect((await store.load()).settings).toEqual({ recent: ['/a/b.onnx'], provider: 'webgpu' })
  })

  it('saves asked for at once all succeed, the last one asked for is the file', async () => {
    // Browser mode's language change and the sweep of uploads saved together: the second rename
    // found the shared temporary file gone (ENOENT), and the page was told "Not found.".
    const store = new SettingsStore(join(tempDir(), 'settings.json'))
    const saves = Array.from({ length: 6 }, (_, i) => store.save({ recent: [`model-${i}.onnx`] }))
    await expect(Promise.all(saves)).resolves.toHaveLength(6)
    expect(JSON.parse(readFileSync(store.file, 'utf8'))).toEqual({ recent: ['model-5.onnx'] })
  })

  it('a corrupt file is set aside with a notice, not a crash', async () => {
    const dir = tempDir()
    const file = join(dir, 'settings.json')
    writeFileSync(file, '{"recent": [ truncated')
    const { settings, notice } = await new SettingsStore(file).load()
    expect(settings).toEqual({ recent: [] })
    expect(notice).toMatch(/^The settings file was unreadable and was set aside as .*settings\.json\.corrupt-\d+\.$/)
    expect(existsSync(file)).toBe(false)
    const aside = readdirSync(dir).find((f) => f.startsWith('settings.json.corrupt-'))!
    expect(readFileSync(join(dir, aside), 'utf8')).toBe('{"recent": [ truncated')
  })
})
