import { KINDS } from '../../attention-kinds'
import { STEP_STAGES } from '../../figure'
import { buildStepHeadsFigure } from '../heads'
import { barStages, buildStepFigure } from '../step'
import { defineView } from './view'

/** The step-through stages of one output step: scores, softmax, (Gaussian,) context vector; for a model with heads, its heads' weights. */
export const step = defineView({
  id: 'step',
  names: { en: 'Step-through', zh: '逐步计算' },
  needs: ['translation', 'attention'],
  tab: { selection: 'keep', encoderStates: true },
  cli: 'step',
  export: { colormap: (d) => KINDS[d.attention].heads, translation: (d) => d.translation },
  // A long sentence on a slide: the bar stages on one slide, the context vector (source across) on the next.
  pieces: (d) => {
    const t = d.translation
    if (d.stages || (KINDS[d.attention].heads && t.crossAttention?.[d.step])) return null
    const kind = KINDS[d.attention]
    const local = t.align !== null && kind.window !== null
    const i = d.step
    const bars = barStages({
      gaussian: kind.window === 'predictive' ? (t.gaussian?.[i] ?? null) : null,
      window: local ? (t.windows?.[i] ?? null) : null,
      position: local ? (t.positions?.[i] ?? null) : null,
    })
    const names = { bars: { en: `stages 1–${bars}`, zh: `第 1–${bars} 阶段` }, context: { en: `stage ${bars + 1}`, zh: `第 ${bars + 1} 阶段` } }
    return STEP_STAGES.map((stages) => ({ data: { ...d, stages }, names: names[stages] }))
  },
  figure: (data, spec, frame) => {
    const t = data.translation
    const i = data.step
    const kind = KINDS[data.attention]
    // Heads have no raw scores and no single context vector: the step is their weights.
    if (kind.heads && t.crossAttention?.[i])
      return buildStepHeadsFigure({
        srcTokens: t.srcTokens,
        tgtTokens: t.tgtTokens,
        step: i,
        heads: t.crossAttention[i],
        average: t.attention[i] ?? [],
        colormap: spec.colormap,
        colorScale: spec.legend,
        frame,
      })
    const local = t.align !== null && kind.window !== null
    return buildStepFigure({
      srcTokens: t.srcTokens,
      tgtTokens: t.tgtTokens,
      step: i,
      scores: t.scores[i] ?? [],
      alpha: local ? (t.align![i] ?? []) : (t.attention[i] ?? []),
      final: t.attention[i] ?? [],
      gaussian: kind.window === 'predictive' ? (t.gaussian?.[i] ?? null) : null,
      window: local ? (t.windows?.[i] ?? null) : null,
      position: local ? (t.positions?.[i] ?? null) : null,
      states: t.encoderStates,
      dims: 48,
      cols: data.cols,
      frame,
      stages: data.stages,
    })
  },
})
