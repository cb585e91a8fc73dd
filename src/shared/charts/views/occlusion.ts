import { buildOcclusionFigure, type OcclusionNames } from '../occlusion'
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
  alternative: { names: { en: 'one above the other', zh: '上下排列' } },
  figure: ({ occlusion: o, title }, spec, frame) =>
    buildOcclusionFigure({ occlusion: o, title, names: OCCLUSION_NAMES[frame.lang], colormap: spec.colormap, colorScale: spec.legend, frame }),
})
