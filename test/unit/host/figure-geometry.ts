/** The figure's own text boxes (src/shared/charts/text-boxes.ts), measured with the export fonts. */
import { measureText } from '../../../src/host/export/fonts'
import { textBoxes as boxesOf } from '../../../src/shared/charts/text-boxes'

export { outside, overlap, pageSize, pathBoxes, parseTransform, type TextBox } from '../../../src/shared/charts/text-boxes'
export const textBoxes = (svg: string) => boxesOf(svg, measureText)

/**
 * The figure's SVG, or null where the figure was refused; a refusal must be one line that names
 * what would fit, and is allowed only where `allowed` says so.
 */
export function svgOrRefusal(render: () => string, allowed: boolean, what: string): string | null {
  try {
    return render()
  } catch (e) {
    const message = (e as Error).message
    if ((e as Error).name !== 'RefusedError') throw e
    if (!allowed) throw new Error(`${what}: refused, but must fit: ${message}`)
    if (message.includes('\n') || !/; try: (fits|split)/.test(message)) throw new Error(`${what}: a refusal names nothing that would fit: ${message}`)
    return null
  }
}
