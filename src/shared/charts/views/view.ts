/**
 * What a view declares about itself, once: the registry (index.ts) lists these and the app's tabs,
 * the CLI's `--view`, the export dialog and the figure dispatcher read them.
 */
import type { Translation } from '../../api'
import type { Capability } from '../../attention-kinds'
import type { FigureData, FigureSpec, FigureView } from '../../figure'
import { FIGURE_TEXT } from '../figure-text'
import type { Frame } from '../frame'
import type { FigureOption } from '../echarts-parts'

export type ViewData<K extends FigureView> = Extract<FigureData, { view: K }>

export interface ViewDef<K extends FigureView = FigureView> {
  /** The figure data's `view`, the app's tab id and the CLI's `--view` name. */
  id: K
  names: { en: string; zh: string }
  /** What the open model must output for the view to be offered (every one of them). */
  needs: readonly Capability[]
  /**
   * A tab of the translation window, and what it does with the selected step and source token when
   * opened: views showing every step at once start from nothing selected ('reset'), so a step
   * picked in the step-through does not dim them; views about one step keep it. `encoderStates`:
   * the view draws h_j, which the other views do without shipping from the engine. Absent: the view
   * is drawn inside another tab (p_t inside local attention, the heads under the heatmap) or is a
   * window of its own (the forecast).
   */
  tab?: { selection: 'reset' | 'keep'; encoderStates?: boolean }
  /** `attention-lens export --view <name>`; absent: the CLI draws it another way (`forecast --out`). */
  cli?: string
  export: {
    /** The export dialog offers a colour map and the colour-scale legend. */
    colormap: (data: ViewData<K>) => boolean
    /** The export dialog offers the local window and p_t drawn over it. */
    overlay?: (data: ViewData<K>) => boolean
    /** The decoding whose matrix the CSV and JSON buttons save; absent: no single matrix to save. */
    translation?: (data: ViewData<K>) => Translation
  }
  /**
   * The view's other arrangement (drawn when the frame asks for `alternative`), named for the
   * fitter's note ("set at 16 pt to fit; transposed"); `offered`: whether this figure has it.
   */
  alternative?: { names: { en: string; zh: string }; offered?: (data: ViewData<K>, spec: FigureSpec) => boolean }
  /** The figure draws output steps `rows` [first, end) when its data says so: the number of steps, so a long sentence splits into parts. */
  steps?: (data: ViewData<K>) => number
  /**
   * The figure draws source positions `cols` [first, end) when its data says so, on the whole
   * sentence's colour scale: the number of positions, so a source too wide for the page splits
   * into parts of it too (each of them split by `steps` as needed).
   */
  sources?: (data: ViewData<K>) => number
  /**
   * Where the figure does not fit its page at the asked text size, even split by output steps: the
   * parts it splits into instead, each a figure of the view that reads on its own slide (the
   * step-through's bar stages and its context; the heads' average and their grid), named for the
   * note. A part that is too long itself splits by its output steps. Absent or null: none.
   */
  pieces?: (data: ViewData<K>) => { data: ViewData<K>; names: { en: string; zh: string } }[] | null
  /** The figure on a page: the view's data and the export settings handed to its own chart builder (the one the app draws with). */
  figure: (data: ViewData<K>, spec: FigureSpec, frame: Frame) => FigureOption
}

type Tab = NonNullable<ViewDef['tab']>

/** Checks a view's declaration against its data's type, keeping in the type whether it is a tab (the identity at run time). */
export const defineView = <K extends FigureView, T extends Tab | undefined = undefined>(def: ViewDef<K> & { tab?: T }): ViewDef<K> & { tab: T } =>
  def as ViewDef<K> & { tab: T }

export const always = (): boolean => true
export const never = (): boolean => false

/** A translation with only output steps [first, end) (a figure split into parts): its rows, and p_t and windows with them. */
export function someRows(t: Translation, rows: readonly [number, number] | undefined): Translation {
  if (!rows) return t
  const [a, b] = rows
  return {
    ...t,
    tgtTokens: t.tgtTokens.slice(a, b),
    attention: t.attention.slice(a, b),
    positions: t.positions?.slice(a, b) ?? null,
    windows: t.windows?.slice(a, b) ?? null,
    ...(t.crossAttention ? { crossAttention: t.crossAttention.slice(a, b) } : {}),
  }
}

/**
 * A translation with only source positions [first, end) (a figure split into parts across the
 * source): its source tokens and the columns of its weights; p_t and the windows counted from the
 * first position (they may fall outside the part: a figure drawing them clips them).
 */
export function someCols(t: Translation, cols: readonly [number, number] | undefined): Translation {
  if (!cols) return t
  const [a, b] = cols
  return {
    ...t,
    srcTokens: t.srcTokens.slice(a, b),
    srcUnknown: t.srcUnknown.slice(a, b),
    attention: t.attention.map((r) => r.slice(a, b)),
    // p_t past the last word's centre (up to S) is drawn at it, as on the whole map.
    positions: t.positions?.map((p) => Math.min(p, t.srcTokens.length - 0.5) - a) ?? null,
    windows: t.windows?.map(([lo, hi]) => [lo - a, hi - a] as [number, number]) ?? null,
  }
}

/**
 * Part [first, end) of `of` positions scaled to a sequence of `n` (one of two that are split
 * alike: side by side's two outputs or sources), never empty, so the parts cover it once.
 */
export function scaledPart(n: number, [first, end]: readonly [number, number], of: number): [number, number] {
  const lo = Math.min(n - 1, Math.round((first * n) / of))
  return [lo, Math.max(lo + 1, Math.round((end * n) / of))]
}

/** Rows [first, end) of a translation that may be shorter than the longest one split (side by side): clamped to its own steps. */
export function someRowsClamped(t: Translation, rows: readonly [number, number] | undefined): Translation {
  if (!rows) return t
  const n = t.tgtTokens.length
  return someRows(t, [Math.min(rows[0], n), Math.min(rows[1], n)])
}

/** The frame of a figure of some rows: the highlighted row counted from the first shown, or none. */
export function rowsFrame(frame: Frame, rows: readonly [number, number] | undefined): Frame {
  if (!rows || frame.highlightRow === null) return frame
  const r = frame.highlightRow - rows[0]
  return { ...frame, highlightRow: r >= 0 && r < rows[1] - rows[0] ? r : null }
}

/** The source axis's title of a figure of some source positions ("source, 1–17 of 34"); the whole source's where it is all drawn. */
export function colsTitle(frame: Pick<Frame, 'lang'>, cols: readonly [number, number] | undefined, of: number): string {
  const L = FIGURE_TEXT[frame.lang]
  return cols ? L.sourceCols(cols[0] + 1, cols[1], of) : L.source
}
