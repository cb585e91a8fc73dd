/**
 * The registry of views: every view of the app and the CLI declared once (view.ts says what a
 * declaration holds). Adding a view is its own file here, one line below, and its data's variant in
 * the figure schema (figure.ts); the app's tabs, the CLI's `--view`, the export dialog and the
 * figure dispatcher read this list.
 */
import type { Translation } from '../../api'
import type { Capabilities, Capability } from '../../attention-kinds'
import type { FigureData, FigureSpec, FigureView } from '../../figure'
import type { Frame } from '../frame'
import { beam } from './beam'
import { comparison } from './comparison'
import { contributions } from './contributions'
import { corpus } from './corpus'
import { forecast } from './forecast'
import { goldlinks } from './goldlinks'
import { heads } from './heads'
import { heatmap } from './heatmap'
import { lines } from './lines'
import { occlusion } from './occlusion'
import { local } from './local'
import { positions } from './positions'
import { sidebyside } from './sidebyside'
import { step } from './step'
import type { ViewDef } from './view'
import { whatif } from './whatif'
import type { FigureOption } from '../echarts-parts'

export type { ViewDef } from './view'

/** In the order of the app's tabs. */
export const VIEW_REGISTRY = [
  heatmap,
  local,
  positions,
  step,
  lines,
  comparison,
  sidebyside,
  beam,
  whatif,
  corpus,
  goldlinks,
  contributions,
  occlusion,
  heads,
  forecast,
] as const

type Registered = (typeof VIEW_REGISTRY)[number]['id']
type Unregistered = Exclude<FigureView, Registered>
// Every view the figure schema knows is registered (a compile error names the one that is not).
const complete: Unregistered extends never ? true : Unregistered = true
void complete

const BY_ID = new Map<string, ViewDef>(VIEW_REGISTRY.map((d) => [d.id, d as unknown as ViewDef]))

/** A registered view's declaration, or undefined for a name no view has. */
export function viewDef<K extends FigureView>(id: K): ViewDef<K> | undefined {
  return BY_ID.get(id) as ViewDef<K> | undefined
}

/** The views that are tabs of the translation window, in order. */
type Tabbed = Extract<(typeof VIEW_REGISTRY)[number], { tab: object }>
export type TabView = Tabbed['id']
export const TAB_VIEWS: readonly TabView[] = VIEW_REGISTRY.filter((d): d is Tabbed => !!d.tab).map((d) => d.id)

/** Whether a model with these capabilities can show the view. */
export function viewOffered(def: { needs: readonly Capability[] }, caps: Capabilities): boolean {
  return def.needs.every((c) => caps[c])
}

/** The views `attention-lens export --view` draws, by CLI name. */
export const CLI_VIEWS = VIEW_REGISTRY.flatMap((d) => (d.cli ? [d.cli] : []))

/** What the export dialog offers for a figure: a colour map, the local overlay, the matrix of one decoding as CSV and JSON. */
export function exportOffers(data: FigureData): { colormap: boolean; overlay: boolean; translation: Translation | null } {
  const e = BY_ID.get(data.view)?.export
  return { colormap: e?.colormap(data) ?? false, overlay: e?.overlay?.(data) ?? false, translation: e?.translation?.(data) ?? null }
}

export function buildFigureParts(data: FigureData, spec: FigureSpec, frame: Frame): FigureOption {
  return BY_ID.get(data.view)!.figure(data, spec, frame)
}
