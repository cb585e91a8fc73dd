/**
 * Reading back a data item's value in an ECharts callback (a formatter, a render item): ECharts
 * types it as any value it could hold, while the builders here always put an array of numbers.
 */

/** The i-th number of an item's array value (NaN where the item holds none). */
export function valueAt(p: { value?: unknown }, i: number): number {
  return Array.isArray(p.value) ? Number(p.value[i]) : NaN
}

/** The item a tooltip formatter is given: the first where it is given several. */
export const firstItem = <T>(p: T | T[]): T => (Array.isArray(p) ? p[0] : p)
