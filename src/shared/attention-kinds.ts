/**
 * The attention kinds a model can declare (`al.attention`) and what each one outputs, as data: code
 * asks a kind's facts (does it have a window? heads? raw scores?) instead of comparing names, so a
 * new kind is one row here plus the engine code that decodes it. In a module of its own so that
 * both the API types (api.ts) and the figure schema (figure.ts) can use it without importing each
 * other.
 */
export const ATTENTION_KINDS = ['none', 'bahdanau', 'luong-dot', 'luong-general', 'luong-concat', 'local-m', 'local-p', 'transformer'] as const
export type AttentionKind = (typeof ATTENTION_KINDS)[number]

/** What a kind outputs at each decoding step, beyond the decoded token. */
export interface KindFacts {
  /** The name a person reads (the model cards' and papers' names). */
  displayName: string
  /** Attention weights at all: `none` reads one fixed context vector. */
  attends: boolean
  /**
   * Local attention: a predicted position p_t and a window [p_t − D, p_t + D] every step.
   * 'monotonic' (local-m: p_t = t, weights cut off at the window's edges) or 'predictive'
   * (local-p: p_t = S·sigmoid(…), weights times a Gaussian around p_t); null for global attention.
   */
  window: 'monotonic' | 'predictive' | null
  /** Several cross-attention heads (layers × heads), `attention` their average. */
  heads: boolean
  /** Raw scores e_tj before the softmax, and one context vector c_t = Σ α_tj h_j. */
  scores: boolean
  /**
   * The score function e_tj, as HTML notation (the step-through's heading); for local attention,
   * the score it declares in `al.score` picks the Luong row. Null where there is no single score.
   */
  score: string | null
  /** Its colour in every chart and figure (model-colours.ts): no orange, which marks the words that differ. */
  colour: string
}

// Formulas are notation, the same in every language.
const SCORES = {
  bahdanau: 'e<sub>tj</sub> = v<sup>⊤</sup> tanh(W s<sub>t−1</sub> + U h<sub>j</sub>)',
  dot: 'e<sub>tj</sub> = s<sub>t</sub><sup>⊤</sup> h<sub>j</sub>',
  general: 'e<sub>tj</sub> = s<sub>t</sub><sup>⊤</sup> W h<sub>j</sub>',
  concat: 'e<sub>tj</sub> = v<sup>⊤</sup> tanh(W [s<sub>t</sub>; h<sub>j</sub>])',
} as const
export type LuongScore = 'dot' | 'general' | 'concat'

const global = (displayName: string, score: string, colour: string): KindFacts => ({
  displayName,
  attends: true,
  window: null,
  heads: false,
  scores: true,
  score,
  colour,
})

export const KINDS: Record<AttentionKind, KindFacts> = {
  // No-attention grey, as the baseline it is.
  none: { displayName: 'no attention', attends: false, window: null, heads: false, scores: false, score: null, colour: '#6b7280' },
  bahdanau: global('Bahdanau (additive)', SCORES.bahdanau, '#2563eb'),
  'luong-dot': global('Luong dot', SCORES.dot, '#059669'),
  'luong-general': global('Luong general', SCORES.general, '#7c3aed'),
  'luong-concat': global('Luong concat', SCORES.concat, '#db2777'),
  'local-m': { displayName: 'Luong local-m', attends: true, window: 'monotonic', heads: false, scores: true, score: SCORES.general, colour: '#0891b2' },
  'local-p': { displayName: 'Luong local-p', attends: true, window: 'predictive', heads: false, scores: true, score: SCORES.general, colour: '#ca8a04' },
  transformer: { displayName: 'Transformer', attends: true, window: null, heads: true, scores: false, score: null, colour: '#dc2626' },
}

/** A kind's facts; an unknown name (a newer file) reads as a kind without attention rather than throwing. */
export function kindOf(kind: string): KindFacts {
  return KINDS[kind as AttentionKind] ?? KINDS.none
}

/** The score function of a model: its kind's, or for local attention the Luong score it declares in `al.score` (general when not declared). */
export function scoreFormula(kind: AttentionKind, localScore?: LuongScore): string {
  const k = KINDS[kind]
  if (k.window && localScore) return SCORES[localScore]
  return k.score ?? ''
}

/**
 * What a model outputs, which is what decides the views it can show (LIT's `shouldDisplayModule`
 * idea): a view declares the capabilities it needs and is offered where the model has them.
 */
export interface Capabilities {
  translation: boolean
  forecast: boolean
  /** Attention weights over the source at each step. */
  attention: boolean
  /** p_t and the window at each step (local attention). */
  positions: boolean
  /** The Gaussian factor around p_t (local-p). */
  gaussian: boolean
  /** Several heads per step. */
  heads: boolean
  /** Raw scores and one context vector per step. */
  scores: boolean
}
export type Capability = keyof Capabilities

export function capabilitiesOf(model: { task: 'translation' | 'forecasting'; attention: AttentionKind }): Capabilities {
  const k = KINDS[model.attention] ?? KINDS.none
  return {
    translation: model.task === 'translation',
    forecast: model.task === 'forecasting',
    attention: k.attends,
    positions: k.window !== null,
    gaussian: k.window === 'predictive',
    heads: k.heads,
    scores: k.scores,
  }
}
