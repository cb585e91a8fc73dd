/**
 * electronegativity's command line with no network request. Before it scans, its
 * dist/locales/i18n.js asks S3 for newer translations of its messages and falls back to the English
 * it ships when that fails; where there is no network the DNS lookups alone took 6 s of the test's
 * 9 (its 1 s request timeout starts after them). `got` (the HTTP client it asks with) is answered
 * here at once with a failure, so the scan starts at once with the shipped English. The only other
 * user of `got` is AvailableSecurityFixesGlobalCheck, which the test leaves out (-x): it would ask
 * the network for Electron's releases.
 */
import { createRequire } from 'node:module'

const load = createRequire(import.meta.url)
const got = createRequire(load.resolve('@doyensec/electronegativity/dist/locales/i18n.js')).resolve('got')
const offline = () => Promise.reject(new Error('no network in the tests'))
load.cache[got] = { id: got, filename: got, loaded: true, exports: { __esModule: true, default: offline } }
load('@doyensec/electronegativity/dist/index.js')
