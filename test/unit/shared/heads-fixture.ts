/**
 * A Transformer's translation made by hand (not a model's): every head's weights follow a known
 * pattern, so tests can say which head is diagonal, which is spread out and which one matches a
 * reference alignment. `attention` is the average of the heads, computed here on its own.
 */
import type { Translation } from '../../../src/shared/api'

export const SRC = ['a', 'little', 'girl', 'in', 'a', 'pink', 'dress', 'is', 'running', 'on', 'the', 'beach', '.', '</s>']
export const TGT = ['une', 'petite', 'fille', 'en', 'robe', 'rose', 'court', 'sur', 'la', 'plage', '.', '</s>']

/** A small deterministic generator (LCG), so the "noisy" heads are the same in every run. */
function lcg(seed: number): () => number {
  let x = seed >>> 0
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0
    return x / 2 ** 32
  }
}

const normalise = (row: number[]) => {
  const z = row.reduce((a, b) => a + b, 0)
  return row.map((w) => w / z)
}

export type Pattern = 'diagonal' | 'shifted' | 'uniform' | 'sink' | 'broad' | 'noisy'
export const PATTERNS: Pattern[] = ['diagonal', 'shifted', 'uniform', 'sink', 'broad', 'noisy']

/** One row of a pattern at step t of T over S source tokens. */
export function patternRow(p: Pattern, t: number, T: number, S: number, rand: () => number): number[] {
  const d = T > 1 ? (t * (S - 1)) / (T - 1) : 0
  const bump = (centre: number, width: number) => Array.from({ length: S }, (_, s) => Math.exp(-((s - centre) ** 2) / (2 * width ** 2)) + 1e-6)
  switch (p) {
    case 'diagonal':
      return normalise(bump(d, 0.35))
    case 'shifted':
      return normalise(bump(Math.min(S - 1, d + 3), 0.35))
    case 'uniform':
      return normalise(Array.from({ length: S }, () => 1))
    case 'sink':
      return normalise(Array.from({ length: S }, (_, s) => (s === S - 1 ? 20 : 0.05)))
    case 'broad':
      return normalise(bump(d, 2.5))
    case 'noisy':
      return normalise(Array.from({ length: S }, () => rand() ** 3 + 1e-3))
  }
}

/** crossAttention[t][l][h][s] with head (l, h) following PATTERNS[(l·H + h) mod 6]. */
export function makeCross(layers: number, heads: number, T = TGT.length, S = SRC.length, seed = 7): number[][][][] {
  const rand = lcg(seed)
  const out: number[][][][] = []
  for (let t = 0; t < T; t++) {
    const step: number[][][] = []
    for (let l = 0; l < layers; l++) {
      const layer: number[][] = []
      for (let h = 0; h < heads; h++) layer.push(patternRow(PATTERNS[(l * heads + h) % PATTERNS.length], t, T, S, rand))
      step.push(layer)
    }
    out.push(step)
  }
  return out
}

/** A Transformer translation of SRC into TGT (or tokens given) with L × H hand-made heads. */
export function transformerTranslation(layers = 3, heads = 4, src = SRC, tgt = TGT): Translation {
  const crossAttention = makeCross(layers, heads, tgt.length, src.length)
  const attention = crossAttention.map((step) => src.map((_, s) => step.reduce((a, l) => a + l.reduce((b, h) => b + h[s], 0), 0) / (layers * heads)))
  return {
    modelId: 'bundled:hand-made-transformer.onnx',
    source: src.join(' '),
    srcTokens: src,
    srcUnknown: src.map(() => false),
    tgtTokens: tgt,
    text: tgt.join(' '),
    attention,
    // A Transformer has no raw scores: one empty row per step.
    scores: tgt.map(() => []),
    encoderStates: [],
    align: null,
    positions: null,
    windows: null,
    gaussian: null,
    crossAttention,
    tokenLogProbs: tgt.map(() => -0.1),
    alternatives: tgt.map(() => []),
    tgtUnknown: null,
    mode: 'greedy',
    beam: 1,
    logProb: -0.1 * tgt.length,
    truncated: false,
    decodeMs: 1,
    provider: 'cpu',
  }
}
