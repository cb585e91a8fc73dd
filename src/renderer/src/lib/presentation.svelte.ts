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

class Presentation {
  on = $state(false)

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

/**
 * The option with every font size scaled for the back row: axis labels and names, legends, titles,
 * visual-map text, rich-text styles. Sizes an option leaves to ECharts' default (12 px) come from
 * the global text style, set to the minimum label size. Functions (formatters) are kept as they are.
 */
export function enlargeText<T extends Record<string, unknown>>(option: T, scale = CHART_TEXT_SCALE, min = MIN_LABEL_PX): T {
  const walk = (x: unknown, key: string): unknown => {
    if (Array.isArray(x)) return x.map((v) => walk(v, key))
    if (!x || typeof x !== 'object' || (x as object).constructor !== Object) return x
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(x as Record<string, unknown>)) {
      // Series data can be large and carries no fonts worth growing except per-cell labels, whose size the series sets.
      if (k === 'data' && key === 'series') out[k] = v
      else if (k === 'fontSize' && typeof v === 'number') out[k] = Math.max(min, Math.round(v * scale))
      else out[k] = walk(v, k)
    }
    return out
  }
  const grown = walk(option, '') as T
  const textStyle = (grown.textStyle as Record<string, unknown> | undefined) ?? {}
  return { ...grown, textStyle: { ...textStyle, fontSize: Math.max(min, Number(textStyle.fontSize ?? 12) * scale) } }
}

/** The smallest font size an option sets (its global text style included), for the tests; null when it sets none. */
export function smallestFont(option: Record<string, unknown>): number | null {
  let min = Infinity
  const walk = (x: unknown, key: string): void => {
    if (Array.isArray(x)) return x.forEach((v) => walk(v, key))
    if (!x || typeof x !== 'object' || (x as object).constructor !== Object) return
    for (const [k, v] of Object.entries(x as Record<string, unknown>)) {
      if (k === 'data' && key === 'series') continue
      if (k === 'fontSize' && typeof v === 'number') min = Math.min(min, v)
      else walk(v, k)
    }
  }
  walk(option, '')
  return Number.isFinite(min) ? min : null
}
