import type { OcclusionResult } from '../../alignment'
import { FIGURE_TEXT } from '../figure-text'
import { buildOcclusionFigure, type OcclusionNames } from '../occlusion'
import { buildOcclusionRows } from '../occlusion-rows'
import { always, defineView } from './view'

/** The panels' heads and the caption, by the figure's language (the app's panel shows the same words). */
export const OCCLUSION_NAMES: Record<'en' | 'zh', OcclusionNames> = {
  en: {
    attention: 'attention',
    importance: 'importance (drop in log p; each row scaled to its largest, negative as 0)',
    summary: (tau, top1) => `mean Kendall τ ${tau === null ? '—' : tau.toFixed(2)} · top-1 agreement ${(100 * top1).toFixed(0)} %`,
  },
  zh: {
    attention: '注意力',
    importance: '重要性（对数概率的下降；每行按其最大值缩放，负值记为 0）',
    summary: (tau, top1) => `平均肯德尔 τ ${tau === null ? '—' : tau.toFixed(2)} · top-1 一致 ${(100 * top1).toFixed(0)} %`,
  },
}

/** Occlusion beside attention: drawn in the Alignment score tab, exported as its own figure. */
export const occlusion = defineView({
  id: 'occlusion',
  names: { en: 'Occlusion', zh: '遮挡' },
  needs: ['translation', 'attention'],
  cli: 'occlusion',
  export: { colormap: always },
  // Each step's attention and importance in one row of halves: a slide takes about three times the
  // steps of two maps (one above the other where side by side is too narrow).
  alternative: { names: { en: "each step's attention and importance in one row", zh: '每步注意力与重要性同在一行' } },
  // A long sentence on a slide: consecutive parts of its output steps, each with every source word.
  steps: (d) => d.occlusion.tgtTokens.length,
  figure: ({ occlusion: o, title, rows }, spec, frame) =>
    (frame.alternative ? buildOcclusionRows : buildOcclusionFigure)({
      occlusion: rows ? someSteps(o, rows) : o,
      title,
      names: OCCLUSION_NAMES[frame.lang],
      colormap: spec.colormap,
      colorScale: spec.legend,
      frame,
      ...(rows ? { part: FIGURE_TEXT[frame.lang].outputRows(rows[0] + 1, rows[1], o.tgtTokens.length) } : {}),
    }),
})

/** Output steps [first, end) of an occlusion: their rows of every per-step list (the sentence's means stay). */
function someSteps(o: OcclusionResult, [a, b]: readonly [number, number]): OcclusionResult {
  return {
    ...o,
    tgtTokens: o.tgtTokens.slice(a, b),
    logProbs: o.logProbs.slice(a, b),
    importance: o.importance.slice(a, b),
    attention: o.attention.slice(a, b),
    tau: o.tau.slice(a, b),
    top1: o.top1.slice(a, b),
  }
}
