/** `attention-lens export --fit auto|strict`, and a refused figure's alternatives with the options that make them. */
import type { FitAlternative } from '../shared/charts/fit'
import { LensError, RefusedError } from '../shared/errors'
import { UsageError } from './options'

export type FitMode = 'auto' | 'strict'

export const FIT_USAGE =
  '              [--fit auto|strict] (auto: the size asked, else the view laid out its other way, else its output steps split into slides at the same text size (PDF: a page each; PNG/SVG: -1, -2, … files); strict: as asked or refused)'

export function fitMode(value: string | undefined): FitMode {
  if (value === undefined || value === 'auto' || value === 'strict') return value ?? 'auto'
  throw new UsageError('--fit must be auto or strict')
}

/** `--rows 1-14` (output steps, counted from 1, both ends in) as [first, end) from 0, checked against the steps there are. */
export function rowsOption(value: string | undefined, steps: number | null): [number, number] | undefined {
  if (value === undefined) return undefined
  if (steps === null) throw new UsageError('--rows applies to --view heatmap and --view lines')
  const m = /^(\d+)-(\d+)$/.exec(value)
  const [a, b] = m ? [Number(m[1]), Number(m[2])] : [0, 0]
  if (!(a >= 1 && a <= b && b <= steps))
    throw new UsageError(`--rows must be FIRST-LAST output steps from 1 to ${steps}, e.g. --rows 1-${Math.ceil(steps / 2)}`)
  return [a - 1, b]
}

/** The figure, or a refusal whose alternatives name the options that make them ("fits at 12 pt (--font screen)"). */
export function refusalWithOptions<T>(fit: () => T): T {
  try {
    return fit()
  } catch (e) {
    const alternatives = ((e as LensError).details as { alternatives?: FitAlternative[] } | undefined)?.alternatives
    if (!(e instanceof RefusedError) || !alternatives?.length) throw e
    let message = e.message
    for (const a of alternatives) message = message.replace(a.label, `${a.label} (${a.options})`)
    throw new RefusedError(message, e.details)
  }
}
