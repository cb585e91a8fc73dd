/**
 * The words figures carry (axis titles, keys) in the languages of the interface. The exporter
 * picks the language the figure was asked in; the views pass their own strings to the builders.
 */
import type { FrameLang } from './frame'

export interface FigureText {
  source: string
  output: string
  /** A figure of some output steps only (an export split into parts): "output, steps 1–14 of 28". */
  outputRows: (first: number, last: number, of: number) => string
  /** A figure of some source positions only (an export split across the source): "source, 1–17 of 34". */
  sourceCols: (first: number, last: number, of: number) => string
  window: string
  pt: string
  weight: string
  sourcePosition: string
  outputStep: string
  outputPosition: string
  diagonal: string
  align: string
  gaussian: string
  box: string
  weights: string
  weightsM: string
  probability: string
  differs: (ref: string) => string
  sourceLength: string
  bleu: string
  scores: string
  /** After the scores' title where some positions are masked: their score is −∞ before the softmax. */
  masked: string
  softmax: string
  gaussianStage: string
  context: string
  states: string
  before: string
  after: string
  changed: (n: number) => string
  override: (mode: string, at: string) => string
  modes: Record<'uniform' | 'onehot' | 'diagonal' | 'custom' | 'silence', string>
  everyStep: string
  stepN: (n: number, tok: string) => string
  sentences: string
  noLines: string
  lineKey: (threshold: number) => string
  beam: Record<'chosen' | 'kept' | 'finished' | 'pruned' | 'continued', string>
  /** The difference map's colour-bar ends: A weighs more (red), B weighs more (blue). */
  moreA: (range: string) => string
  moreB: (range: string) => string
  /** The difference map's heading when it is drawn small, without token labels, beside A and B. */
  differenceKeyed: string
  /** Under A and B on a page (a slide) with no room for their difference. */
  differenceNoRoom: string
  /** The layer × head grid (transformer cross-attention). */
  heads: {
    layer: (n: number) => string
    head: (n: number) => string
    /** One head by name: "layer 2, head 3". */
    name: (layer: number, head: number) => string
    /** The average of every head, the default heatmap. */
    average: string
    /** Under a grid whose small maps carry no token labels: they share the labelled average's axes. */
    sameAxes: string
    /** The axis title of a step's per-head rows, and the name of their average's row. */
    rows: string
    mean: string
    /** What the numbers on the cells' titles (b, d, a: notation, the same in every language) mean. */
    key: (reference: string | null) => string
    best: string
  }
}

export const FIGURE_TEXT: Record<FrameLang, FigureText> = {
  en: {
    source: 'source',
    output: 'output',
    outputRows: (a, b, n) => `output, steps ${a}–${b} of ${n}`,
    sourceCols: (a, b, n) => `source, ${a}–${b} of ${n}`,
    window: 'window [pₜ − D, pₜ + D]',
    pt: 'pₜ',
    weight: 'weight',
    sourcePosition: 'source position',
    outputStep: 'output step',
    outputPosition: 'output position',
    diagonal: 'diagonal',
    align: 'in-window softmax',
    gaussian: 'Gaussian factor',
    box: 'window factor (1 inside)',
    weights: 'final weight = softmax × Gaussian',
    weightsM: 'final weight',
    probability: 'P(token)',
    differs: (ref) => `differs from ${ref}`,
    sourceLength: 'source length (tokens; sentences)',
    bleu: 'BLEU',
    scores: 'scores eₜⱼ',
    masked: '−∞: masked',
    softmax: 'softmax αₜⱼ',
    gaussianStage: 'Gaussian × softmax = final aₜⱼ',
    context: 'context cₜ = Σⱼ aₜⱼ hⱼ',
    states: 'encoder states hⱼ',
    before: 'original',
    after: 'with the override',
    changed: (n) => (n === 0 ? 'nothing changed' : `${n} token${n > 1 ? 's' : ''} changed`),
    override: (mode, at) => `${mode}, ${at}`,
    modes: { uniform: 'uniform weights', onehot: 'one-hot on', diagonal: 'monotonic diagonal', custom: 'hand-edited weights', silence: 'head silenced' },
    everyStep: 'every step',
    stepN: (n, tok) => `step ${n} (${tok})`,
    sentences: 'sentences',
    noLines: 'no line at this threshold',
    lineKey: (th) => `line width ∝ attention weight (below ${th.toFixed(2)}: no line)`,
    beam: { chosen: 'chosen', kept: 'kept in the beam', finished: 'finished (</s>)', pruned: 'pruned', continued: 'continued from the row above' },
    moreA: (r) => `+${r} A`,
    moreB: (r) => `−${r} B`,
    differenceKeyed: 'A − B, on A’s axes',
    differenceNoRoom: 'No room for A − B at this size: a taller page or paper-double shows it',
    heads: {
      layer: (n) => `layer ${n}`,
      head: (n) => `head ${n}`,
      name: (l, h) => `layer ${l}, head ${h}`,
      average: 'average of all heads',
      sameAxes: 'each small map: the axes of the average (source across, output down)',
      rows: 'layer, head',
      mean: 'mean',
      key: (ref) =>
        `b: entropy in bits · d: share of the weight within ±1 of the diagonal${ref === null ? '' : ` · a: agreement with ${ref} · outlined: the best`}`,
      best: 'agrees best',
    },
  },
  zh: {
    source: '源语言',
    output: '输出',
    outputRows: (a, b, n) => `输出（第 ${a}–${b} 步，共 ${n} 步）`,
    sourceCols: (a, b, n) => `源语言（第 ${a}–${b} 个，共 ${n} 个）`,
    window: '窗口 [pₜ − D, pₜ + D]',
    pt: 'pₜ',
    weight: '权重',
    sourcePosition: '源语言位置',
    outputStep: '输出步',
    outputPosition: '输出位置',
    diagonal: '对角线',
    align: '窗口内 softmax',
    gaussian: '高斯系数',
    box: '窗口系数（窗口内为 1）',
    weights: '最终权重 = softmax × 高斯',
    weightsM: '最终权重',
    probability: 'P(词元)',
    differs: (ref) => `与 ${ref} 不同`,
    sourceLength: '源句长度（词元；句数）',
    bleu: 'BLEU',
    scores: '打分 eₜⱼ',
    masked: '−∞：被屏蔽',
    softmax: 'softmax αₜⱼ',
    gaussianStage: '高斯 × softmax = 最终权重 aₜⱼ',
    context: '上下文向量 cₜ = Σⱼ aₜⱼ hⱼ',
    states: '编码器状态 hⱼ',
    before: '原始输出',
    after: '替换后的输出',
    changed: (n) => (n === 0 ? '输出没有变化' : `${n} 个词元发生变化`),
    override: (mode, at) => `${mode}，${at}`,
    modes: { uniform: '均匀分布', onehot: '独热：关注', diagonal: '单调对角线', custom: '手动编辑', silence: '静音注意力头' },
    everyStep: '每一步',
    stepN: (n, tok) => `第 ${n} 步（${tok}）`,
    sentences: '句',
    noLines: '此阈值下没有连线',
    lineKey: (th) => `线宽 ∝ 注意力权重（低于 ${th.toFixed(2)} 不画线）`,
    beam: { chosen: '最终选中', kept: '保留在束中', finished: '已结束（</s>）', pruned: '被剪掉', continued: '接上一行' },
    moreA: (r) => `+${r} A`,
    moreB: (r) => `−${r} B`,
    differenceKeyed: 'A − B（坐标轴同 A）',
    differenceNoRoom: '此尺寸放不下 A − B：更高的页面或 paper-double 可显示',
    heads: {
      layer: (n) => `第 ${n} 层`,
      head: (n) => `头 ${n}`,
      name: (l, h) => `第 ${l} 层 头 ${h}`,
      average: '所有头的平均',
      sameAxes: '每个小图的坐标轴与平均图相同（横为源语言，纵为输出）',
      rows: '层与头',
      mean: '平均',
      key: (ref) => `b：熵（比特）· d：对角线 ±1 以内的权重占比${ref === null ? '' : ` · a：与 ${ref} 的一致度 · 加框：最一致`}`,
      best: '最一致',
    },
  },
}

/**
 * A word of a translation in words, named by its decoder steps (issue 40: one count of steps, the
 * decoder's, which writes one piece a step): "word 5 of 29 (pieces 6–7)", "word 4 of 29 (piece 5)".
 * `k` counts from 0, `span` is the word's first and last piece, from 0.
 */
export function wordSteps(k: number, words: number, span: readonly [number, number], lang: FrameLang = 'en'): string {
  const [a, b] = [span[0] + 1, span[1] + 1]
  if (lang === 'zh') return `第 ${k + 1} / ${words} 个词（${a === b ? `片段 ${a}` : `片段 ${a}–${b}`}）`
  return `word ${k + 1} of ${words} (${a === b ? `piece ${a}` : `pieces ${a}–${b}`})`
}
