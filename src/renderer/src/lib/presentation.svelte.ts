/**
 * Presentation mode, for a projector: large type everywhere and only the controls a lecture needs.
 * One global switch (like the language), read by the app shell for the page's type and by
 * Chart.svelte for the text inside the charts.
 */

/** The key that toggles it, when no text field has the focus (F5 reloads the page in a browser). */
export const PRESENTATION_KEY = 'p'
/** Chart text grows by this much, and no chart label is smaller than MIN_LABEL_PX. */
export const CHART_TEXT_SCALE = 1.6
export const MIN_LABEL_PX = 20

/**
 * The least text size of a slide at 720 px of window height: the exporter's floor for a slide, 14 pt
 * on a 7.5 in high page, is 14 / 72 × 96 = 18.7 px of 720. It scales with the window's height, so a
 * slide on a 1080 px projector keeps the same share of the screen (28.05 px).
 */
export const FLOOR_AT_720 = 18.7

/** The least text size of a slide in a window `height` px high, rounded up to 0.1 px. */
export const slideFloor = (height: number): number => Math.ceil(((FLOOR_AT_720 * height) / 720) * 10 - 1e-9) / 10

class Presentation {
  on = $state(false)
  /** The window's inner height, kept by the app shell: the slides' text floor follows it. */
  height = $state(720)
  /** The least size of every text on a slide (page and charts), in px. */
  floor = $derived(slideFloor(this.height))

  toggle(): void {
    this.on = !this.on
  }
}

export const presentation = new Presentation()

/** True when a key press belongs to a text field (typing a "p" must not switch modes). */
export function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null
  return !!el && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName))
}

/** Text-bearing parts whose labels ECharts sets at 12 px unless told (the global text style does not reach them). */
const LABELLED = new Set(['axisLabel', 'nameTextStyle', 'label', 'textStyle'])
/**
 * Distances set in pixels for 12–14 px text (the room around a plot, the gap to an axis name), grown
 * with it; a grid laid out in pixels (rows of text) grows whole, its width and height too, and so
 * does the width a label is cut to (an axis label, a legend entry).
 */
const ROOM = new Set(['top', 'bottom', 'left', 'right', 'nameGap', 'margin', 'distance', 'lineHeight', 'barMaxWidth', 'itemWidth', 'itemHeight', 'itemGap'])
/** Markers and strokes, grown with the text so a point or a p_t triangle is not lost beside 20 px labels. */
const MARKS = new Set(['symbolSize', 'width', 'borderWidth'])

/**
 * The option with every font size scaled for the back row: axis labels and names, legends, titles,
 * visual-map text, rich-text styles, and labels that leave their size to ECharts. The room the
 * builder left for its text (grid margins, name gaps, label margins) and its markers (symbol
 * sizes, line widths) grow by the same factor, and a category axis draws every label (no
 * interval skipping). Functions (formatters) are kept as they are; series data is left alone.
 */
export function enlargeText<T extends Record<string, unknown>>(option: T, scale = CHART_TEXT_SCALE, min = MIN_LABEL_PX): T {
  const walk = (x: unknown, key: string, parent: string): unknown => {
    if (Array.isArray(x)) return x.map((v) => walk(v, key, parent))
    if (!x || typeof x !== 'object' || (x as object).constructor !== Object) return x
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(x as Record<string, unknown>)) {
      // Series data can be large and carries no fonts worth growing except per-cell labels, whose size the series sets.
      if (k === 'data' && key === 'series') out[k] = v
      else if (k === 'fontSize' && typeof v === 'number') out[k] = Math.max(min, Math.round(v * scale))
      else if (
        typeof v === 'number' &&
        (ROOM.has(k) || MARKS.has(k) || (key === 'grid' && (k === 'width' || k === 'height'))) &&
        key !== 'axisPointer' &&
        !(k === 'width' && !/lineStyle|itemStyle|grid|axisLabel|textStyle/.test(key))
      )
        out[k] = Math.round(v * scale * 10) / 10
      else out[k] = walk(v, k, key)
    }
    if (LABELLED.has(key) && out.fontSize === undefined && out.show !== false) out.fontSize = min
    // Labels of two lines ("1-10" over "(3)"): ECharts sets them a font size apart, closer than their boxes.
    if (LABELLED.has(key) && typeof out.fontSize === 'number' && out.lineHeight === undefined) out.lineHeight = Math.round(out.fontSize * 1.25)
    // An axis with no label style of its own still draws labels (at ECharts' 12 px).
    if ((key === 'xAxis' || key === 'yAxis') && out.axisLabel === undefined) out.axisLabel = walk({}, 'axisLabel', key)
    // Every token label drawn: ECharts would otherwise skip labels it thinks crowded.
    if (key === 'axisLabel' && (parent === 'xAxis' || parent === 'yAxis') && out.interval === undefined) out.interval = 0
    return out
  }
  const grown = walk(option, '', '') as T
  const textStyle = (grown.textStyle as Record<string, unknown> | undefined) ?? {}
  return { ...grown, textStyle: { ...textStyle, fontSize: Math.max(min, Number(textStyle.fontSize ?? 12) * scale) } }
}

/** The smallest font size an option sets for text it draws (its global text style included), for the tests; null when it sets none. */
export function smallestFont(option: Record<string, unknown>): number | null {
  let min = Infinity
  const walk = (x: unknown, key: string): void => {
    if (Array.isArray(x)) return x.forEach((v) => walk(v, key))
    if (!x || typeof x !== 'object' || (x as object).constructor !== Object) return
    // A label switched off (a map's values where they do not fit) draws nothing at its size.
    if ((x as Record<string, unknown>).show === false) return
    for (const [k, v] of Object.entries(x as Record<string, unknown>)) {
      if (k === 'data' && key === 'series') continue
      if (k === 'fontSize' && typeof v === 'number') min = Math.min(min, v)
      else walk(v, k)
    }
  }
  walk(option, '')
  return Number.isFinite(min) ? min : null
}
