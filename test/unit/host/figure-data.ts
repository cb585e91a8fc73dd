/** Figure data every figure test draws from the bundled models: the forecast and the BLEU-by-length corpus. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { CorpusResult, ForecastResult, Translation } from '../../../src/shared/api'
import { InferenceService } from '../../../src/engine/service'
import { parseSeriesCsv } from '../../../src/shared/series'
import { BUNDLED_MODELS, ROOT } from '../../helpers'

const model = (name: string) => join(BUNDLED_MODELS, `${name}.onnx`)

/** A sentence translated by en-fr-local-p (greedy) on a service of its own, closed after. */
export async function localPTranslation(sentence: string): Promise<Translation> {
  const svc = new InferenceService()
  try {
    return await svc.translate(model('en-fr-local-p'), sentence)
  } finally {
    await svc.closeAll()
  }
}

/** taylor-local-p's forecast from the held-out weeks' step 384. */
export async function bundledForecast(svc: InferenceService): Promise<ForecastResult> {
  const series = parseSeriesCsv(readFileSync(join(ROOT, 'resources', 'series', 'taylor-holdout.csv'), 'utf8'), 'taylor')
  return svc.forecast(model('taylor-local-p'), series, 384)
}

/** Three en→fr models (none, Bahdanau, local-p) on the 50-sentence test fixture. */
export async function bundledCorpus(svc: InferenceService): Promise<CorpusResult> {
  const lines = (ext: string) =>
    readFileSync(join(ROOT, 'test', 'fixtures', `multi30k-test-50.${ext}`), 'utf8')
      .trim()
      .split('\n')
  const corpus: CorpusResult = { pair: 'en-fr', testSet: 'multi30k-test-50', results: [] }
  for (const [name, attention] of [
    ['en-fr-none', 'none'],
    ['en-fr-bahdanau', 'bahdanau'],
    ['en-fr-local-p', 'local-p'],
  ] as const)
    corpus.results.push({ ...(await svc.evaluate(model(name), lines('en'), lines('fr'))), modelId: name, attention, model: name })
  return corpus
}
