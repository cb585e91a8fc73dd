import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ATTENTION_KINDS, capabilitiesOf } from '../../../src/shared/attention-kinds'
import { CLI_VIEWS, TAB_VIEWS, VIEW_REGISTRY, viewDef, viewOffered } from '../../../src/shared/charts/views'
import { ROOT } from '../../helpers'

describe('the view registry', () => {
  it('declares each view once, with a name in both languages', () => {
    const ids = VIEW_REGISTRY.map((d) => d.id)
    expect(new Set(ids).size).toBe(ids.length)
    for (const d of VIEW_REGISTRY) expect([d.names.en.length > 0, d.names.zh.length > 0], d.id).toEqual([true, true])
  })

  it("gives the app's tabs in order and the CLI's --view names", () => {
    expect(TAB_VIEWS).toEqual(['heatmap', 'local', 'step', 'lines', 'comparison', 'sidebyside', 'beam', 'whatif', 'corpus', 'goldlinks', 'contributions'])
    expect([...CLI_VIEWS].sort()).toEqual([
      'beam',
      'comparison',
      'contributions',
      'corpus',
      'heads',
      'heatmap',
      'lines',
      'local',
      'occlusion',
      'positions',
      'sidebyside',
      'step',
      'whatif',
    ])
  })

  it("the README's command line lists the CLI's views", () => {
    const line = readFileSync(join(ROOT, 'README.md'), 'utf8').match(/attention-lens export .*--view ([a-z]+(?:\|[a-z]+)+) /)
    expect(line?.[1].split('|').sort()).toEqual([...CLI_VIEWS].sort())
  })

  it('offers a view where the model outputs what it needs', () => {
    const offered = (attention: (typeof ATTENTION_KINDS)[number]) =>
      VIEW_REGISTRY.filter((d) => viewOffered(d, capabilitiesOf({ task: 'translation', attention }))).map((d) => d.id)
    expect(offered('none')).toEqual(['heatmap', 'comparison', 'sidebyside', 'beam', 'corpus', 'contributions'])
    expect(offered('bahdanau')).toEqual([
      'heatmap',
      'step',
      'lines',
      'comparison',
      'sidebyside',
      'beam',
      'whatif',
      'corpus',
      'goldlinks',
      'contributions',
      'occlusion',
    ])
    expect(offered('local-p')).toContain('local')
    expect(offered('local-m')).toContain('local')
    expect(offered('transformer')).toContain('heads')
    expect(offered('bahdanau')).not.toContain('heads')
    const forecaster = VIEW_REGISTRY.filter((d) => viewOffered(d, capabilitiesOf({ task: 'forecasting', attention: 'local-p' }))).map((d) => d.id)
    expect(forecaster).toEqual(['forecast'])
  })

  it('looks a view up by id, and answers nothing for a name no view has', () => {
    expect(viewDef('step')?.tab).toEqual({ selection: 'keep', encoderStates: true })
    expect(viewDef('piechart' as 'step')).toBeUndefined()
  })
})
