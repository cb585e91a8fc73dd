/** Colour maps as evenly spaced stops (ECharts' visualMap interpolates between them). */
export const COLORMAPS = {
  // Perceptually uniform (matplotlib's viridis), sampled at 9 points.
  viridis: ['#440154', '#472d7b', '#3b528b', '#2c728e', '#21918c', '#28ae80', '#5ec962', '#addc30', '#fde725'],
  greys: ['#ffffff', '#f0f0f0', '#d9d9d9', '#bdbdbd', '#969696', '#737373', '#525252', '#252525', '#000000'],
} as const
export type ColormapName = keyof typeof COLORMAPS
