import type { ModelSummary } from '../../../shared/api'
import { KINDS } from '../../../shared/attention-kinds'

/** One side of the side-by-side view: a model's own output (greedy or beam), or a reference forced through a model. */
export type Side = { kind: 'model'; modelId: string; beam: number } | { kind: 'reference'; modelId: string }

export function sideKey(s: Side): string {
  return s.kind === 'model' ? `m:${s.beam}:${s.modelId}` : `r:${s.modelId}`
}

export function parseSide(key: string): Side | null {
  const m = key.match(/^m:(\d+):(.+)$/)
  if (m) return { kind: 'model', modelId: m[2], beam: Number(m[1]) }
  const r = key.match(/^r:(.+)$/)
  return r ? { kind: 'reference', modelId: r[1] } : null
}

/** The beam width the "beam" choice uses: the decoding menu's, or 5 while it says greedy. */
export function beamWidth(menu: number): number {
  return menu > 1 ? menu : 5
}

/**
 * What each side can show: every model of the open model's language pair, greedy and with the
 * beam, and the reference forced through it when there is a reference.
 */
export function sideChoices(models: ModelSummary[], current: ModelSummary, menuBeam: number, hasReference: boolean): Side[] {
  const pair = models.filter((x) => x.task === 'translation' && x.srcLang === current.srcLang && x.tgtLang === current.tgtLang)
  // The open model first, so its choices head the list.
  const ordered = [...pair.filter((x) => x.id === current.id), ...pair.filter((x) => x.id !== current.id)]
  const k = beamWidth(menuBeam)
  return ordered.flatMap((x): Side[] => [
    { kind: 'model', modelId: x.id, beam: 1 },
    { kind: 'model', modelId: x.id, beam: k },
    ...(hasReference ? [{ kind: 'reference', modelId: x.id } as Side] : []),
  ])
}

/**
 * Where the view starts: the open model's greedy output on the left; on the right another
 * attention model of the pair (another kind of attention first), else the reference, else the beam.
 */
export function defaultSides(models: ModelSummary[], current: ModelSummary, menuBeam: number, hasReference: boolean): [Side, Side] {
  const left: Side = { kind: 'model', modelId: current.id, beam: 1 }
  const others = models.filter(
    (x) => x.id !== current.id && x.task === 'translation' && x.srcLang === current.srcLang && x.tgtLang === current.tgtLang && KINDS[x.attention].attends,
  )
  const other = others.find((x) => x.attention !== current.attention) ?? others[0]
  if (other) return [left, { kind: 'model', modelId: other.id, beam: 1 }]
  if (hasReference) return [left, { kind: 'reference', modelId: current.id }]
  return [left, { kind: 'model', modelId: current.id, beam: beamWidth(menuBeam) }]
}
