/**
 * V8's budget for deciding that a function is hot, 16 × its default (67,584): the test workers,
 * the browser-mode hosts they start and those hosts' engines run a great deal of code a few times
 * each (every test file's figures, fits and PDFs once), and at the default V8 optimised much of it
 * with TurboFan on its background threads for a run or two: TurboFan was 9.5 % of the busy CPU of
 * `npm test` (perf, 199 Hz, every process). The hot loops still reach TurboFan. Measured, all
 * processes, interleaved (issue 40, "Performance"): six heavy unit files 188, 195, 217, 173 CPU s
 * at the default, 162, 154 at 8 × and 156, 162 at 16 ×; five e2e files 152, 137 against 130, 128.
 * package.json gives ESLint and Prettier the same flag (node's NODE_OPTIONS refuses it).
 */
export const JIT_FLAGS = ['--interrupt-budget=1081344']
