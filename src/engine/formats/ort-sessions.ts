import * as ort from '../onnxruntime'

// onnxruntime's process-wide logger prints a provider that fails to load (the CUDA library not
// installed) as an [E:onnxruntime…] line on stderr, though the failure also reaches us as an
// exception that the fallback turns into one readable line. Sessions keep their own level below.
ort.env.logLevel = 'fatal'

/**
 * `once`: a session run once per translation (an encoder, a decoder's first step beside its
 * with-past decoder) is made without prepacking. onnxruntime's CPU kernels otherwise repack every
 * weight matrix into their own layout as the session is made, reading and copying all of its
 * weights: most of the time a large folder takes to open (NLLB-600M fp32: 3 s for the encoder,
 * 7–9 s for decoder_model.onnx, of CPU time; bench/HF-LARGE-RESULTS.md). A session left unpacked
 * maps its external weights as they lie and packs what a run needs as it runs: the encoder's run
 * costs 13 ms more (q8) or 36 ms (fp32), an fp32 one-row step nothing (onnxruntime's one-row
 * product reads the weights as they are). A session run every token keeps its packed weights:
 * unpacked, a q8 step costs 2.5× and an fp32 beam step 2×.
 */
export function sessionOptions(provider: string, use: 'once' | 'steps' = 'steps'): ort.InferenceSession.SessionOptions {
  return {
    executionProviders: [provider],
    graphOptimizationLevel: 'all',
    // One thread per session: the step graphs are small, and thread hand-offs cost more than they save.
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    // Every failure reaches the user as one sentence (a provider that cannot start, a run that
    // fails: ortReason, the fallback line); onnxruntime's own multi-line log would only repeat it.
    logSeverityLevel: 4,
    ...(use === 'once' ? { extra: { session: { disable_prepacking: '1' } } } : {}),
  }
}

/**
 * Whether a model of this dtype computes the same sums however its sessions are arranged: a merged
 * decoder's branch lifted out of its If (hf/split.ts), a session made without prepacking. Not
 * float16, whose CPU kernels then sum in another order: random-weight M2M100-418M fp16, lifted,
 * and NLLB-600M fp16, its encoder made unpacked, each chose another id where their logits were
 * near a tie, against onnxruntime-python running the same files (hf-large.test.ts). An fp16 folder
 * runs its decoders as exported, every session packed.
 */
export const rearrangesExactly = (dtype: string): boolean => !/16/.test(dtype)

/**
 * What a session is made from: a model's bytes, the path of a file onnxruntime reads itself (no
 * copy through JavaScript), or a graph's bytes whose external data onnxruntime reads from `dir`
 * (a tapped decoder whose weights stay in the user's folder: its path checks apply there, as to a
 * file in that folder).
 */
export type ModelSource = Uint8Array | string | { bytes: Uint8Array; dir: string }

/** Creates sessions one after the other, releasing those already made when one fails; `each`: every part's options, or each part's in turn. */
export async function createAll(
  parts: ModelSource[],
  each: ort.InferenceSession.SessionOptions | ort.InferenceSession.SessionOptions[],
): Promise<ort.InferenceSession[]> {
  const made: ort.InferenceSession[] = []
  try {
    for (const [i, p] of parts.entries()) {
      const options = Array.isArray(each) ? each[i] : each
      if (typeof p === 'string') made.push(await ort.InferenceSession.create(p, options))
      else if (p instanceof Uint8Array) made.push(await ort.InferenceSession.create(p, options))
      else {
        const extra = { ...(options.extra as Record<string, unknown> | undefined) }
        const session = { ...(extra.session as Record<string, unknown> | undefined), model_external_initializers_file_folder_path: p.dir }
        made.push(await ort.InferenceSession.create(p.bytes, { ...options, extra: { ...extra, session } }))
      }
    }
    return made
  } catch (e) {
    for (const m of made) await m.release()
    throw e
  }
}

/**
 * Opens with a GPU provider and falls back to the CPU with a one-line note where it cannot start
 * (no adapter, no driver, library missing); a model the CPU cannot load either is refused.
 */
export async function withProvider<R>(
  provider: string,
  make: (provider: string) => Promise<R>,
  refuse: (reason: string) => Error,
): Promise<{ made: R; provider: string; note: string | null }> {
  if (provider !== 'cpu') {
    try {
      return { made: await make(provider), provider, note: null }
    } catch (e) {
      const note = `${provider} could not start (${providerReason(e)}); running on CPU.`
      const made = await make('cpu').catch((err: unknown) => {
        throw refuse(ortReason(err))
      })
      return { made, provider: 'cpu', note }
    }
  }
  const made = await make('cpu').catch((err: unknown) => {
    throw refuse(ortReason(err))
  })
  return { made, provider: 'cpu', note: null }
}

/** The readable part of onnxruntime's provider error ("Failed to get a WebGPU adapter: …"). */
function providerReason(e: unknown): string {
  const msg = firstLine(e)
  const m = msg.match(/(Failed to [^\n]*?|[^ ]*Failed to load shared library)(\.|$)/)
  return (m ? m[1] : msg).slice(0, 160)
}

/**
 * The readable part of an onnxruntime error, without its source path, C++ signature and status
 * prefix: "/…/graph.cc:1404 onnxruntime::Graph::Graph(…) This is an invalid model. …" →
 * "This is an invalid model. …".
 */
export function ortReason(e: unknown): string {
  let msg = firstLine(e)
  const status = msg.lastIndexOf('[ONNXRuntimeError]')
  if (status >= 0) msg = msg.slice(status).replace(/^\[ONNXRuntimeError\]\s*:\s*\d+\s*:\s*\w+\s*:\s*/, '')
  const sig = msg.search(/\) [A-Z][^)]*$/)
  if (/^\S+\.(cc|h|cpp):\d+ [\w:~]+\(/.test(msg) && sig >= 0) msg = msg.slice(sig + 2)
  msg = msg.replace(/^\S+\.(cc|h|cpp):\d+ (\w+ )?/, '')
  return msg
}

export function firstLine(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e)
  return msg.split('\n')[0].replace(/[.\s]+$/, '')
}
