import type { AttentionKind, LocalScore } from '../../../shared/api'

// Formulas are notation, the same in every language (HTML for the Step-through headings).
const SCORE_FORMULA: Record<string, string> = {
  bahdanau: 'e<sub>tj</sub> = v<sup>⊤</sup> tanh(W s<sub>t−1</sub> + U h<sub>j</sub>)',
  'luong-dot': 'e<sub>tj</sub> = s<sub>t</sub><sup>⊤</sup> h<sub>j</sub>',
  'luong-general': 'e<sub>tj</sub> = s<sub>t</sub><sup>⊤</sup> W h<sub>j</sub>',
  'luong-concat': 'e<sub>tj</sub> = v<sup>⊤</sup> tanh(W [s<sub>t</sub>; h<sub>j</sub>])',
}

/**
 * The score function e_tj of a model: its kind's, or for local attention the one it declares in
 * `al.score` (Luong's dot, general or concat inside the window; general when not declared).
 */
export function scoreFormula(kind: AttentionKind, localScore?: LocalScore): string {
  const key = kind === 'local-m' || kind === 'local-p' ? `luong-${localScore ?? 'general'}` : kind
  return SCORE_FORMULA[key] ?? ''
}
