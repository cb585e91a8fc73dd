import type { SentenceScore } from '../shared/teaching'
import { computeBleu, sentenceStats } from './bleu'
import { sentenceChrf } from './chrf'

/**
 * One hypothesis against one reference, as sacreBLEU's sentence_bleu (13a, exp smoothing,
 * effective order: a short sentence is not zeroed by a missing 4-gram) and sentence_chrf.
 */
export function scoreSentence(hypothesis: string, reference: string): SentenceScore {
  const s = sentenceStats(hypothesis, [reference])
  return {
    bleu: computeBleu(s.counts, s.totals, s.sysLen, s.refLen, { effectiveOrder: true }).score,
    chrf: sentenceChrf(hypothesis, [reference]),
  }
}
