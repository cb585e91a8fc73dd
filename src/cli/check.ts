/**
 *   attention-lens check M.onnx [N.onnx …] [--json] [--verbose] [--provider P]
 * Everything the app would find wrong with a model file, all at once: what will not work and
 * why, one line each. Exit 0 when the app can use every feature (a feature the model's format
 * cannot offer, such as what-if on a Hugging Face folder, is listed as not offered and does not
 * count), 1 when some will not work, 2 when a file cannot be opened at all (the worst file decides).
 * A multilingual folder that names no language pair opens (the app asks for one): it is checked
 * with a stand-in pair, and the report asks for the pair with its codes without counting it.
 */
import { basename } from 'node:path'
import { parseArgs } from 'node:util'
import { checkFile, exitCode, FEATURE_NAMES, type CheckReport } from '../engine/check'
import { isKnownProvider } from '../engine/providers'
import { LANG_OPTIONS, modelPath } from './options'

function describe(r: CheckReport, verbose = false): string {
  const s = r.spec
  const what = s
    ? ` (${s.attention}${s.heads ? ` ${s.heads.layers} layers × ${s.heads.heads} heads` : ''}, ${s.task === 'forecasting' ? `forecasting ${s.forecast?.history} → ${s.forecast?.horizon} steps` : `${s.srcLang}→${s.tgtLang}`})`
    : ''
  const head = `${basename(r.path)}${r.name ? `: ${r.name}` : ''}${what}`
  const errors = new Set(r.findings.filter((f) => f.level === 'error' && !f.notOffered).map((f) => f.feature)).size
  const unoffered = r.findings.some((f) => f.notOffered)
  const verdict = r.fatal.length
    ? 'the app cannot open it'
    : errors
      ? `${errors} feature${errors > 1 ? 's' : ''} will not work`
      : `the app can use every feature${unoffered ? ' this format offers' : ''}`
  const lines = [`${head} — ${verdict}`]
  for (const d of r.details ?? []) lines.push(`  · ${d}`)
  // A folder that names no language pair: it opens, and the pair is asked for (exit 0 all the same).
  if (r.pairNeeded) lines.push(`  ? language pair: ${r.pairNeeded}`)
  for (const m of r.fatal) lines.push(`  ✗ ${m}`)
  for (const f of r.findings) {
    // What the format cannot offer is no fault of the model: said so, and it does not count (exit 0).
    if (f.notOffered) {
      lines.push(`  – ${FEATURE_NAMES[f.feature]}: not offered by this format (${f.message})`)
      continue
    }
    lines.push(`  ${f.level === 'error' ? '✗' : '!'} ${FEATURE_NAMES[f.feature]}: ${f.message}`)
    // onnxruntime's own words, node names and all: for whoever debugs the graph.
    if (verbose && f.detail) lines.push(`      onnxruntime: ${f.detail}`)
  }
  for (const p of r.passed) lines.push(`  ✓ ${p}`)
  return lines.join('\n')
}

export async function check(argv: string[]): Promise<number> {
  let v
  try {
    v = parseArgs({
      args: argv,
      options: { json: { type: 'boolean' }, verbose: { type: 'boolean' }, provider: { type: 'string', default: 'cpu' }, ...LANG_OPTIONS },
      strict: true,
      allowPositionals: true,
    })
  } catch (e) {
    throw new Error(`${(e as Error).message.split('\n')[0]} (attention-lens --help)`)
  }
  // --src-lang/--tgt-lang: the pair every file is checked with (a multilingual folder's, or refused by a bilingual one).
  const paths =
    v.values['src-lang'] === undefined && v.values['tgt-lang'] === undefined && v.values.dtype === undefined
      ? v.positionals
      : v.positionals.map((p) => modelPath(p, 'the model', v.values))
  if (paths.length === 0) throw new Error('check needs a model file: attention-lens check M.onnx (attention-lens --help)')
  const provider = v.values.provider ?? 'cpu'
  if (!isKnownProvider(provider)) throw new Error(`"${provider}" is not an execution provider this build of onnxruntime knows`)
  let code = 0
  const reports = []
  for (const p of paths) {
    const r = await checkFile(p, provider)
    code = Math.max(code, exitCode(r))
    if (v.values.json)
      reports.push({
        path: r.path,
        name: r.name,
        format: r.format,
        details: r.details,
        ...(r.pairNeeded ? { pairNeeded: r.pairNeeded } : {}),
        exitCode: exitCode(r),
        fatal: r.fatal,
        findings: r.findings,
        passed: r.passed,
      })
    else console.log(describe(r, v.values.verbose))
  }
  if (v.values.json) console.log(JSON.stringify(paths.length === 1 ? reports[0] : reports, null, 2))
  return code
}
