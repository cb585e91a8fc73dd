/**
 * Names every skipped test at the end of a run, with the reason it gave (ctx.skip(note)): the
 * default reporter only counts them, and a skip that nobody sees is a test that silently did not run.
 */
import type { Reporter, TestCase } from 'vitest/node'

export default class SkipReporter implements Reporter {
  private skipped: string[] = []

  onTestCaseResult(test: TestCase): void {
    const r = test.result()
    if (r.state === 'skipped') this.skipped.push(`${test.module.relativeModuleId} > ${test.fullName}${r.note ? ` (${r.note})` : ''}`)
  }

  onTestRunEnd(): void {
    if (!this.skipped.length) return
    process.stdout.write(`\nSkipped (${this.skipped.length}):\n${this.skipped.map((s) => `  ↓ ${s}\n`).join('')}`)
    this.skipped = []
  }
}
