/**
 * A translation over subword pieces as the same translation over words, the default in the app's
 * views and in exported figures (`--pieces` / the "pieces" switch keeps the pieces). One pure
 * function, applied where a translation is drawn (the renderer's state, the CLI), never inside a
 * chart builder. The rule per field (README, "Words and pieces"):
 *
 * - attention, align (in-window softmax), every head of crossAttention: the weight a source word
 *   receives is the sum over its pieces; an output word's row is the mean of its pieces' rows, so
 *   every row is still a distribution (src/shared/attention/words.ts).
 * - scores e_tj: pooled by log-sum-exp over a word's source pieces, so that softmax over the word
 *   scores gives the summed weights exactly; rows averaged over an output word's pieces.
 * - gaussian (a factor per source position, not a distribution): mean over a word's source pieces
 *   and over its output pieces.
 * - positions p_t: averaged over an output word's pieces; windows [p_t − D, p_t + D]: the union of
 *   its pieces' windows (every source position one of its steps could read; the pieces of one word
 *   can look far apart); both moved into word coordinates (a piece takes an equal share of its
 *   word's cell), so p_t still lands on the word whose piece it pointed at.
 * - encoderStates: the mean of a word's pieces' states (a no-attention model's one fixed context
 *   is left as it is).
 * - tokenLogProbs: summed over an output word's pieces (log P of the word given what came before);
 *   alternatives: those of the word's first piece, where the model chose the word.
 * - srcUnknown / tgtUnknown: a word is unknown if any of its pieces is; replaced (<unk> copying):
 *   the first replaced piece of a word, its source position as a source word; blocked (the repeat
 *   guard's): the first piece of a word where the guard blocked the model's own choice.
 * - beamTree, logProb, text and the rest are about decoder steps and stay as they are: the views
 *   that show one decoder step at a time (local, step-through, beam, what-if) draw pieces.
 *
 * The result keeps `words` (each word's [first, last] piece on both sides), so a click on a word
 * can still address its pieces, and so a translation already in words is returned unchanged.
 */
import type { Alternative, Translation } from '../api'
import { meanPerSpan, meanRows, pieceToWord, sumColumns, wordAttention, wordLabels, wordSpans, type Span } from './words'

export type { Span }

/** What a view or a figure draws: whole words (the default) or the model's subword pieces. */
export type Units = 'words' | 'pieces'
export const UNITS: readonly Units[] = ['words', 'pieces']

/** Each word's [first, last] piece: source words (columns) and output words (rows). */
export interface WordMaps {
  src: Span[]
  tgt: Span[]
}

const anyIn = (flags: readonly boolean[], spans: readonly Span[]): boolean[] => spans.map(([a, b]) => flags.slice(a, b + 1).some(Boolean))

/** Columns pooled by log-sum-exp per span: softmax of the pooled row = the summed softmax. */
function logSumExpColumns(matrix: readonly (readonly number[])[], spans: readonly Span[]): number[][] {
  return matrix.map((row) =>
    spans.map(([a, b]) => {
      const xs = row.slice(a, b + 1)
      const m = Math.max(...xs)
      if (!Number.isFinite(m)) return m
      return m + Math.log(xs.reduce((s, x) => s + Math.exp(x - m), 0))
    }),
  )
}

/** Columns averaged per span. */
function meanColumns(matrix: readonly (readonly number[])[], spans: readonly Span[]): number[][] {
  return matrix.map((row) => meanPerSpan(row, spans))
}

/**
 * A piece coordinate (piece i's cell is [i − ½, i + ½]) as a word coordinate: the word's cell is
 * shared equally by its pieces, so the map is linear inside a word and continuous across words.
 */
export function wordCoordinate(x: number, spans: readonly Span[]): number {
  if (spans.length === 0) return x
  const last = spans[spans.length - 1][1]
  const i = Math.min(last, Math.max(0, Math.floor(x + 0.5)))
  const of = pieceToWord(spans)
  const k = of[i]
  const [a, b] = spans[k]
  const n = b - a + 1
  // Positions outside the sentence (a window reaching past either end) keep their distance in pieces.
  if (x < -0.5) return x
  if (x > last + 0.5) return spans.length - 1 + (x - last)
  return k - 0.5 + (x + 0.5 - a) / n
}

/** The word holding piece `i` (null stays null): a piece selection shown on a word view. */
export function wordOfPiece(i: number | null, spans: readonly Span[] | undefined): number | null {
  if (i === null || !spans) return i
  const k = spans.findIndex(([a, b]) => i >= a && i <= b)
  return k < 0 ? null : k
}

/** The first piece of word `k` (null stays null): a click on a word addresses its pieces from there. */
export function firstPiece(k: number | null, spans: readonly Span[] | undefined): number | null {
  if (k === null || !spans) return k
  return spans[k]?.[0] ?? null
}

/** Pieces → words for every field of a translation (the rules above); a translation in words already is returned as it is. */
export function inWords(t: Translation): Translation {
  if (t.words) return t
  const src = wordSpans(t.srcTokens)
  const tgt = wordSpans(t.tgtTokens)
  const srcWord = pieceToWord(src)
  const rows = <T>(xs: readonly T[], pick: (span: Span) => T): T[] => (xs.length === 0 ? [] : tgt.map(pick))
  const sumMean = (m: readonly (readonly number[])[]) => (m.length === 0 ? [] : wordAttention(m, src, tgt))
  const ownStates = t.encoderStates.length === t.srcTokens.length && t.srcTokens.length > 0
  return {
    ...t,
    srcTokens: wordLabels(t.srcTokens, src),
    tgtTokens: wordLabels(t.tgtTokens, tgt),
    srcUnknown: anyIn(t.srcUnknown, src),
    tgtUnknown: t.tgtUnknown ? anyIn(t.tgtUnknown, tgt) : null,
    attention: sumMean(t.attention),
    // A transformer has no scores: one empty row per step, kept one per word.
    scores: t.scores.length === 0 ? [] : t.scores.every((r) => r.length === 0) ? tgt.map(() => []) : meanRows(logSumExpColumns(t.scores, src), tgt),
    encoderStates: ownStates ? meanRows(t.encoderStates, src) : t.encoderStates,
    align: t.align ? sumMean(t.align) : null,
    gaussian: t.gaussian ? meanRows(meanColumns(t.gaussian, src), tgt) : null,
    positions: t.positions ? meanPerSpan(t.positions, tgt).map((p) => wordCoordinate(p, src)) : null,
    windows: t.windows
      ? tgt.map(([a, b]) => {
          const w = t.windows!.slice(a, b + 1)
          return [wordCoordinate(Math.min(...w.map((x) => x[0])), src), wordCoordinate(Math.max(...w.map((x) => x[1])), src)] as [number, number]
        })
      : null,
    ...(t.crossAttention
      ? {
          crossAttention: tgt.map(([a, b]) => {
            const steps = t.crossAttention!.slice(a, b + 1)
            return steps[0].map((layer, l) =>
              layer.map(
                (_, h) =>
                  meanRows(
                    sumColumns(
                      steps.map((s) => s[l][h]),
                      src,
                    ),
                    [[0, steps.length - 1]],
                  )[0],
              ),
            )
          }),
        }
      : {}),
    tokenLogProbs: rows(t.tokenLogProbs, ([a, b]) => t.tokenLogProbs.slice(a, b + 1).reduce((s, x) => s + x, 0)),
    alternatives: rows<Alternative[]>(t.alternatives, ([a]) => t.alternatives[a] ?? []),
    // A word is marked where the repeat guard blocked the model's choice at any of its pieces (the first such).
    ...(t.blocked ? { blocked: tgt.map(([a, b]) => t.blocked!.slice(a, b + 1).find((x) => x !== null) ?? null) } : {}),
    ...(t.replaced
      ? {
          replaced: tgt.map(([a, b]) => {
            const r = t.replaced!.slice(a, b + 1).find((x) => x !== null) ?? null
            return r && { ...r, sourceIndex: srcWord[r.sourceIndex] ?? r.sourceIndex }
          }),
        }
      : {}),
    words: { src, tgt },
  }
}

/** The translation in the units asked for. */
export function inUnits(t: Translation, units: Units): Translation {
  return units === 'words' ? inWords(t) : t
}
