/**
 * Each tab of the translation window (the view registry, src/shared/charts/views, declares them)
 * and the component that draws it, with its props from the app's state. The registry cannot name
 * Svelte components (it is shared with the CLI and the exporter), so the app's half of a new view is
 * one line here; the compiler refuses a tab without one.
 */
import type { Component } from 'svelte'
import type { ModelInfo, Translation } from '../../../shared/api'
import type { TabView } from '../../../shared/charts/views'
import type { LensState } from '../state/lens.svelte'
import AlignmentView from './AlignmentView.svelte'
import BeamView from './BeamView.svelte'
import CompareView from './CompareView.svelte'
import ContributionsView from './ContributionsView.svelte'
import CorpusView from './CorpusView.svelte'
import GoldLinksView from './GoldLinksView.svelte'
import HeatmapView from './HeatmapView.svelte'
import LocalView from './LocalView.svelte'
import SideBySideView from './SideBySideView.svelte'
import StepView from './StepView.svelte'
import WhatIfView from './WhatIfView.svelte'

/** A selection as a view sees it (pieces, or words in word mode) and how the view reports a click. */
export interface Selection {
  selectedRow: number | null
  selectedCol: number | null
  onselect: (r: number | null, c: number | null) => void
}

/**
 * What a tab is drawn from: the app's state, the open model, the decoding the views draw (model or
 * reference), the model's own output, and the same decoding in the units chosen (words by default)
 * with the selection mapped to those units, for the views that draw whole sentences.
 */
export interface TabContext {
  lens: LensState
  model: ModelInfo
  shown: Translation
  output: Translation
  drawn: Translation
  words: Selection
}

export interface TabComponent {
  // Props are checked where each entry is made (tab() below); the table holds them erased.
  component: Component<Record<string, unknown>>
  props: (c: TabContext) => Record<string, unknown>
}

function tab<P extends object>(component: Component<P>, props: (c: TabContext) => P): TabComponent {
  return { component, props } as unknown as TabComponent
}

/** The selection every one-sentence view shares. */
const selection = ({ lens }: TabContext): Selection => ({
  selectedRow: lens.selectedRow,
  selectedCol: lens.selectedCol,
  onselect: (r: number | null, c: number | null) => lens.select(r, c),
})

export const TAB_COMPONENTS: Record<TabView, TabComponent> = {
  heatmap: tab(HeatmapView, (c) => ({
    translation: c.drawn,
    pieces: c.shown,
    model: c.model,
    models: c.lens.models,
    head: c.lens.head,
    onhead: (h) => c.lens.setHead(h),
    ...c.words,
    style: c.lens.heatmapStyle,
    onstyle: (p) => c.lens.setHeatmapStyle(p),
  })),
  local: tab(LocalView, (c) => ({ translation: c.shown, model: c.model, ...selection(c) })),
  step: tab(StepView, (c) => ({ translation: c.shown, model: c.model, ...selection(c) })),
  lines: tab(AlignmentView, (c) => ({ translation: c.drawn, model: c.model, ...c.words })),
  comparison: tab(CompareView, ({ lens, model }) => ({ model, models: lens.models, text: lens.text, units: lens.units, guard: lens.guard })),
  sidebyside: tab(SideBySideView, ({ lens, model, output }) => ({
    model,
    models: lens.models,
    text: lens.text,
    beam: lens.beam,
    guard: lens.guard,
    output,
    forced: lens.forced,
    reference: lens.reference,
    style: lens.heatmapStyle,
    units: lens.units,
  })),
  beam: tab(BeamView, ({ lens, output }) => ({ translation: output, beam: lens.beam, onbeam: (k) => lens.setBeam(k) })),
  whatif: tab(WhatIfView, ({ lens, model, shown }) => ({ translation: shown, model, selectedRow: lens.selectedRow, head: lens.head, guard: lens.guard })),
  corpus: tab(CorpusView, ({ lens, model }) => ({ model, models: lens.models })),
  goldlinks: tab(GoldLinksView, ({ lens, model }) => ({ model, models: lens.models, text: lens.text })),
  contributions: tab(ContributionsView, ({ lens, model, shown }) => ({
    model,
    translation: shown,
    forced: shown !== lens.translation,
    units: lens.units,
    style: lens.heatmapStyle,
  })),
}
