/** The colour maps a figure may ask for: the figure schema checks the name, src/shared/charts/colormaps.ts holds the colours. */
export const COLORMAP_NAMES = ['viridis', 'cividis', 'greys'] as const
export type ColormapName = (typeof COLORMAP_NAMES)[number]
