import type { ColormapName } from '../colormap-names'

export { COLORMAP_NAMES, type ColormapName } from '../colormap-names'

/** Colour maps as evenly spaced stops (ECharts' visualMap interpolates between them). */
export const COLORMAPS: Record<ColormapName, readonly string[]> = {
  // Perceptually uniform (matplotlib's viridis), sampled at 9 points. The default.
  viridis: ['#440154', '#472d7b', '#3b528b', '#2c728e', '#21918c', '#28ae80', '#5ec962', '#addc30', '#fde725'],
  // Designed to read the same for the common colour-vision deficiencies (cividis, Nuñez et al. 2018).
  cividis: ['#00224e', '#123570', '#3b496c', '#575d6d', '#707173', '#8a8779', '#a69d75', '#c4b56c', '#fee838'],
  // For print: white (0) to black (1).
  greys: ['#ffffff', '#f0f0f0', '#d9d9d9', '#bdbdbd', '#969696', '#737373', '#525252', '#252525', '#000000'],
}

function hex(c: string): [number, number, number] {
  return [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16)) as [number, number, number]
}

/** The colour a map gives to x in [0, 1], interpolated linearly between stops as ECharts does. */
export function colorAt(name: ColormapName, x: number): [number, number, number] {
  const stops = COLORMAPS[name]
  const f = Math.min(1, Math.max(0, x)) * (stops.length - 1)
  const i = Math.min(stops.length - 2, Math.floor(f))
  const a = hex(stops[i])
  const b = hex(stops[i + 1])
  const u = f - i
  return [0, 1, 2].map((k) => Math.round(a[k] + (b[k] - a[k]) * u)) as [number, number, number]
}

/** Black or white, whichever reads better on this background. */
export function textColorOn(rgb: [number, number, number]): string {
  const l = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]
  return l > 140 ? '#111827' : '#ffffff'
}
