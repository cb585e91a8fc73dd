/**
 * axe-core on a page as it is: every violation, each with its impact and the first nodes it found
 * (their selectors). The e2e files that audit a page (a11y, contributions, the HTML export, the
 * restart) share it, so each reads the same rules the same way.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

export interface Violation {
  id: string
  impact: string
  /** The selectors of the first nodes (up to `nodes`). */
  nodes: string[]
}

export async function axeViolations(page: Page, nodes = 4): Promise<Violation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: AXE })
  return page.evaluate(async (most) => {
    type Axe = { run: (c: unknown, o: unknown) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> }
    // Only the violations are read: axe then builds a selector for one node of each passing or
    // inapplicable rule, not for every node it checked (its documented option for speed).
    const r = await (window as unknown as { axe: Axe }).axe.run(document, { resultTypes: ['violations'] })
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, most).map((n) => n.target.join(' ')) }))
  }, nodes)
}

/** Whether a violation is critical or serious: what the e2e audits allow none of. */
export const isSerious = (v: Violation): boolean => v.impact === 'critical' || v.impact === 'serious'

/** The critical and serious ones. */
export const serious = (v: Violation[]): Violation[] => v.filter(isSerious)
