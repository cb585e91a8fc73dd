import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { EngineClient } from '../../../src/host/engine-client'
import { forkEngine } from '../../../src/host/engine-fork'
import { fromBinary, ModelProtoSchema, toBinary } from '../../../src/engine/onnx-proto'
import { tempDir, tiny } from '../../helpers'

/** A small seeded generator, so a failure can be replayed. */
function rng(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const ROUNDS = Number(process.env.AL_FUZZ_ROUNDS ?? 1000)
const GARBAGE = ['', 'null', '[]', '{}', '[1,2,3]', '"x"', '{"type":"bpe"}', '-1', '1e309', 'x'.repeat(1000), '[' + '"a",'.repeat(10) + '"b"]']

/** One mutation of a model file: flipped bits, a cut, or an edited metadata key or graph name. */
function mutate(bytes: Uint8Array, r: () => number): { kind: string; data: Uint8Array } {
  const pick = r()
  if (pick < 0.4) {
    const out = bytes.slice()
    const flips = 1 + Math.floor(r() * 16)
    for (let i = 0; i < flips; i++) out[Math.floor(r() * out.length)] ^= 1 << Math.floor(r() * 8)
    return { kind: 'bit flips', data: out }
  }
  if (pick < 0.6) return { kind: 'truncation', data: bytes.slice(0, Math.floor(r() * bytes.length)) }
  const m = fromBinary(ModelProtoSchema, bytes)
  if (pick < 0.85) {
    const props = m.metadataProps
    const p = props[Math.floor(r() * props.length)]
    if (r() < 0.3) props.splice(props.indexOf(p), 1)
    else p.value = GARBAGE[Math.floor(r() * GARBAGE.length)]
    return { kind: 'metadata edit', data: toBinary(ModelProtoSchema, m) }
  }
  const g = m.graph!
  const vs = [...g.input, ...g.output]
  const v = vs[Math.floor(r() * vs.length)]
  if (r() < 0.5) v.name = v.name + '_x'
  else if (v.type?.value.case === 'tensorType') v.type.value.value.elemType = [1, 6, 7, 10, 11][Math.floor(r() * 5)]
  return { kind: 'graph edit', data: toBinary(ModelProtoSchema, m) }
}

describe('fuzz: mutated models never take the app down', () => {
  const engine = new EngineClient(() => forkEngine())
  afterAll(() => engine.dispose())

  it(`opens ${ROUNDS} mutations of the fixture models: each loads or is refused in one sentence`, async () => {
    const r = rng(20261129)
    const dir = tempDir()
    // Plain Uint8Arrays: a Buffer's slice() would share memory and let mutations pile up.
    const sources = ['bahdanau', 'local-p', 'none'].map((k) => new Uint8Array(readFileSync(tiny(k))))
    const counts = { tried: 0, loaded: 0, rejected: 0, crashed: 0 }
    const badMessages: string[] = []
    for (let i = 0; i < ROUNDS; i++) {
      const { kind, data } = mutate(sources[i % sources.length], r)
      const path = join(dir, `m${i}.onnx`)
      writeFileSync(path, data)
      counts.tried++
      try {
        await engine.call('open', path)
        counts.loaded++
        await engine.call('close', path)
      } catch (e) {
        const msg = (e as Error).message
        if (/The engine process stopped/.test(msg)) counts.crashed++
        else counts.rejected++
        if (msg.includes('\n') || /\bat .*:\d+:\d+/.test(msg) || msg.length > 400) badMessages.push(`${kind}: ${msg}`)
      }
    }
    console.log(`fuzz: tried ${counts.tried}, loaded ${counts.loaded}, rejected with a message ${counts.rejected}, crashed the engine ${counts.crashed}`)
    expect(counts.tried).toBe(ROUNDS)
    expect(counts.loaded + counts.rejected + counts.crashed).toBe(ROUNDS)
    expect(badMessages).toEqual([])
    expect(counts.crashed).toBe(0)
    // And the engine still works afterwards.
    const t = await engine.call('translate', tiny('bahdanau'), 'A dog runs.')
    expect(t.tgtTokens.length).toBeGreaterThan(0)
  }, 300_000)
})
