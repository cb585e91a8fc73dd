import { describe, expect, it } from 'vitest'
import type { CheckFinding } from '../../../src/shared/api'
import { checkFile, exitCode, type CheckReport } from '../../../src/engine/check'
import { InferenceService } from '../../../src/engine/service'
import { TensorProto_DataType } from '../../../src/engine/onnx-proto'
import { BUNDLED_MODELS, editedModel, setMeta, tensorTypeOf, tiny } from '../../helpers'
import { addInput, after, BATCH_TENSORS, constant, externalise, fixAxis, inputToConstant, nanOf, node, rewire, scale, storeAs } from './check-edits'
import { join } from 'node:path'

const T = TensorProto_DataType
const SOURCE_TENSORS = ['src_ids', 'src_mask', 'encoder_states', 'attn_override', 'encoder_out', 'attention', 'scores']

/** The findings of one level and feature, as messages. */
const messages = (r: CheckReport, level: CheckFinding['level'], feature?: CheckFinding['feature']) =>
  r.findings.filter((f) => f.level === level && (!feature || f.feature === feature)).map((f) => f.message)

describe('attention-lens check on valid models', () => {
  it.each(['tiny-bahdanau', 'tiny-local-m', 'tiny-local-p', 'tiny-none'])('%s: every feature works, nothing to report (exit 0)', async (name) => {
    const r = await checkFile(tiny(name.replace('tiny-', '')))
    expect(r.fatal).toEqual([])
    expect(r.findings).toEqual([])
    expect(exitCode(r)).toBe(0)
    expect(r.passed.join('; ')).toMatch(/greedy decoding at two lengths.*batch of two.*beam search.*forced/)
  })

  it('a bundled forecaster: a forecast and a batch of two origins (exit 0)', async () => {
    const r = await checkFile(join(BUNDLED_MODELS, 'taylor-local-p.onnx'))
    expect(r.findings).toEqual([])
    expect(r.passed).toEqual(['a forecast of 48 steps from 384 history steps', 'an overridden step (what-if attention)', 'a batch of two forecast origins'])
  })
})

describe('files the app cannot open (exit 2): every contract problem at once, values quoted', () => {
  it('lists every problem, not the first', async () => {
    const r = await checkFile(
      editedModel(tiny('bahdanau'), (m) => {
        setMeta(m, 'al.src_lang', 'English')
        setMeta(m, 'al.special_tokens', '{"pad":0,"unk":1,"bos":2,"eos":999}')
        tensorTypeOf(m.graph!.input.find((v) => v.name === 'src_mask')!).elemType = T.DOUBLE
      }),
    )
    expect(exitCode(r)).toBe(2)
    expect(r.fatal).toEqual([
      'The model\'s special token "eos" is 999, outside its vocabularies (400 source and 400 target entries).',
      'The model\'s "al.src_lang" is "English", not a language code such as "en", "zh" or "pt-BR".',
      'The model\'s input "src_mask" is float64 (double), not float32: export in float32 (model.float() and float32 example inputs); the app feeds and reads float32.',
    ])
  })

  it('names dtypes, not ONNX enum numbers', async () => {
    const half = await checkFile(
      editedModel(tiny('bahdanau'), (m) => (tensorTypeOf(m.graph!.output.find((v) => v.name === 'attention')!).elemType = T.FLOAT16)),
    )
    expect(half.fatal).toEqual([
      'The model\'s output "attention" is float16, not float32: export in float32 (model.float() and float32 example inputs); the app feeds and reads float32.',
    ])
    const int32 = await checkFile(editedModel(tiny('bahdanau'), (m) => (tensorTypeOf(m.graph!.input.find((v) => v.name === 'prev_token')!).elemType = T.INT32)))
    expect(int32.fatal).toEqual(['The model\'s input "prev_token" is int32, not int64: export token ids as torch.long.'])
    const bool = await checkFile(editedModel(tiny('bahdanau'), (m) => (tensorTypeOf(m.graph!.input.find((v) => v.name === 'override_on')!).elemType = T.BOOL)))
    expect(bool.fatal).toEqual(['The model\'s input "override_on" is bool, not float32.'])
  })

  it('special tokens under other names: says which keys the file has', async () => {
    const r = await checkFile(editedModel(tiny('bahdanau'), (m) => setMeta(m, 'al.special_tokens', '{"pad":0,"unk":1,"start":2,"end":3}')))
    expect(r.fatal).toEqual([
      'The model\'s "al.special_tokens" has no "bos" (it has "start", "end": the keys must be pad, unk, bos and eos, whatever the tokens are called).',
    ])
    const notId = await checkFile(editedModel(tiny('bahdanau'), (m) => setMeta(m, 'al.special_tokens', '{"pad":0,"unk":1,"bos":2,"eos":"</s>"}')))
    expect(notId.fatal).toEqual(['The model\'s special token "eos" is "</s>", not a token id (a whole number).'])
  })

  it('NaN in float16, bfloat16 and float64 weights, as in float32', async () => {
    for (const dtype of [T.FLOAT16, T.BFLOAT16, T.DOUBLE]) {
      const r = await checkFile(editedModel(tiny('bahdanau'), (m) => storeAs(m, 'model.init.weight', dtype, NaN)))
      expect(r.fatal, `dtype ${dtype}`).toEqual(['The model\'s weights contain NaN or infinite values (in "model.init.weight__stored").'])
    }
    // The same weights without the NaN open: the cast graph itself is fine.
    const clean = await checkFile(editedModel(tiny('bahdanau'), (m) => storeAs(m, 'model.init.weight', T.FLOAT16)))
    expect(clean.fatal).toEqual([])
  })

  it('infinities in a weight are refused; one infinite masking constant (float("-inf")) is not', async () => {
    const inf = await checkFile(editedModel(tiny('bahdanau'), (m) => storeAs(m, 'model.init.weight', T.FLOAT16, Infinity)))
    expect(inf.fatal).toEqual(['The model\'s weights contain NaN or infinite values (in "model.init.weight__stored").'])
    const mask = await checkFile(
      editedModel(tiny('bahdanau'), (m) => after(m, 'scores', (raw) => node(m, 'Max', [raw, constant(m, [-Infinity], [1])], ['scores']))),
    )
    expect(mask.fatal).toEqual([])
  })

  it('weights kept in a separate file (external data)', async () => {
    const r = await checkFile(editedModel(tiny('bahdanau'), (m) => externalise(m, 'model.init.weight')))
    expect(r.fatal).toEqual([
      'The model keeps its weights in a separate file (external data, first "model.init.weight"); this app opens one self-contained file: save with onnx.save(model, path, save_as_external_data=False).',
    ])
  })

  it('declared none but computing attention', async () => {
    const r = await checkFile(editedModel(tiny('bahdanau'), (m) => setMeta(m, 'al.attention', 'none')))
    expect(r.fatal).toEqual([
      'The model is declared without attention (al.attention "none") but has the outputs "attention", "scores": declare the attention kind it computes, or leave those outputs out.',
    ])
  })

  it('declared local-p without the local outputs: a hint, not just "no output named position"', async () => {
    const r = await checkFile(
      editedModel(tiny('bahdanau'), (m) => {
        setMeta(m, 'al.attention', 'local-p')
        setMeta(m, 'al.window_d', '3')
      }),
    )
    expect(r.fatal).toEqual([
      'The model has no outputs named "position", "window", "gaussian", "align": a local-p model (al.attention) returns position, window, gaussian, align besides attention and scores (docs/model-format.md, Outputs); if its attention is global, declare that kind instead.',
    ])
  })

  it('echoes al.window_d, al.score and al.state_size', async () => {
    const r = await checkFile(
      editedModel(tiny('local-p'), (m) => {
        setMeta(m, 'al.window_d', 'four')
        setMeta(m, 'al.score', 'cosine')
        setMeta(m, 'al.state_size', '-3')
      }),
    )
    expect(r.fatal).toEqual([
      'The local-p model\'s "al.window_d" is "four", not a positive whole number (the window half-width D).',
      'The model\'s "al.score" is "cosine", not one of dot, general, concat.',
      'The model\'s "al.state_size" is "-3", not a positive whole number.',
    ])
  })

  it('a forecaster whose seasonal lag exceeds its history', async () => {
    const r = await checkFile(
      editedModel(join(BUNDLED_MODELS, 'taylor-none.onnx'), (m) => {
        const f = JSON.parse(m.metadataProps.find((p) => p.key === 'al.forecast')!.value)
        setMeta(m, 'al.forecast', JSON.stringify({ ...f, seasonal_lags: [48, 400] }))
      }),
    )
    expect(r.fatal).toEqual(['The model\'s seasonal lag 400 reaches further back than its history of 384 steps (a lag must not exceed "history").'])
  })
})

describe('shapes and inputs (exit 1 when a feature will not work)', () => {
  it('the batch fixed at 1: beam search will not work, batches run one sentence at a time', async () => {
    const r = await checkFile(editedModel(tiny('bahdanau'), (m) => fixAxis(m, BATCH_TENSORS, 0, 1)))
    expect(exitCode(r)).toBe(1)
    expect(messages(r, 'error')).toEqual([
      'Beam search decodes its hypotheses as one batch, but the batch size is fixed at 1 (input "src_ids" is [1, src_len]; also "src_mask", "encoder_states", "state", "prev_token" and 8 more): export with dynamic axes (torch.onnx.export(..., dynamic_axes=...), see "Dynamic axes" in docs/model-format.md).',
    ])
    expect(messages(r, 'warning', 'batch')).toEqual([
      'The batch size is fixed at 1 (input "src_ids" is [1, src_len]), so BLEU by length decodes one sentence at a time (slower): export with dynamic axes (torch.onnx.export(..., dynamic_axes=...), see "Dynamic axes" in docs/model-format.md).',
    ])
    expect(r.passed).toContain('scoring a given translation (forced decoding)')
  })

  it('fully static shapes: translation itself will not work', async () => {
    const r = await checkFile(
      editedModel(tiny('bahdanau'), (m) => {
        fixAxis(m, BATCH_TENSORS, 0, 1)
        fixAxis(m, SOURCE_TENSORS, 1, 12)
      }),
    )
    expect(messages(r, 'error', 'translate')).toEqual([
      'The source length (tokens with the final </s>) is fixed (input "src_ids" is [1, 12]; also "src_mask", "encoder_states", "attn_override", "encoder_out" and 2 more), so other lengths fail: export with dynamic axes (torch.onnx.export(..., dynamic_axes=...), see "Dynamic axes" in docs/model-format.md).',
    ])
    expect(exitCode(r)).toBe(1)
  })

  it('the batch fixed at 2', async () => {
    const r = await checkFile(editedModel(tiny('none'), (m) => fixAxis(m, ['src_ids', 'src_mask'], 0, 2)))
    expect(messages(r, 'error', 'translate')[0]).toBe(
      'The batch size is fixed at 2 (input "src_ids" is [2, src_len]), but the app decodes one sentence at a time: export with dynamic axes (torch.onnx.export(..., dynamic_axes=...), see "Dynamic axes" in docs/model-format.md).',
    )
  })

  it('an input the app never feeds, and one nothing reads', async () => {
    const r = await checkFile(
      editedModel(tiny('bahdanau'), (m) => {
        addInput(m, 'temperature', [1])
        after(m, 'logits', (raw) => node(m, 'Div', [raw, 'temperature'], ['logits']))
        addInput(m, 'unused_flag', ['batch'])
      }),
    )
    expect(messages(r, 'error', 'translate')[0]).toBe(
      'The decoder step reads the input "temperature", which the app never feeds (it feeds prev_token, state, encoder_states, src_mask, step, attn_override, override_on): give it a default value (an initializer) or remove it.',
    )
    expect(messages(r, 'warning', 'translate')).toEqual(['The input "unused_flag" is declared but no part of the model reads it; the app ignores it.'])
  })

  it('no override inputs: what-if attention will not work', async () => {
    const r = await checkFile(
      editedModel(tiny('bahdanau'), (m) => {
        inputToConstant(m, 'attn_override', [0], [1, 1])
        inputToConstant(m, 'override_on', [0], [1])
      }),
    )
    expect(messages(r, 'error')).toEqual([
      'The decoder step has no input "attn_override", "override_on", so its attention cannot be overridden (what-if attention): add attn_override [B, S] and override_on [B] and use the override in place of the computed weights.',
    ])
  })
})

describe('what decoding shows (the outputs held to the contract)', () => {
  it('attention rows that do not sum to 1', async () => {
    const r = await checkFile(editedModel(tiny('bahdanau'), (m) => scale(m, 'attention', 'Mul', 2)))
    expect(messages(r, 'error', 'attention')[0]).toMatch(
      /^The attention weights at output step 1 of "\S+ \S+ \S+" sum to 2\.000, not 1: "attention" must be the softmax over the source positions \(0 on padding\)\.$/,
    )
  })

  it('negative weights', async () => {
    const r = await checkFile(editedModel(tiny('bahdanau'), (m) => scale(m, 'attention', 'Mul', -1)))
    expect(messages(r, 'error', 'attention')[0]).toMatch(
      /^The attention weight at output step 1 of .*, source position 1, is -0\.\d+, not a weight between 0 and 1\.$/,
    )
  })

  it('an attention row with fewer weights than source positions', async () => {
    const r = await checkFile(
      editedModel(tiny('bahdanau'), (m) =>
        after(m, 'attention', (raw) =>
          node(m, 'Slice', [raw, constant(m, [0], [1], T.INT64), constant(m, [-1], [1], T.INT64), constant(m, [1], [1], T.INT64)], ['attention']),
        ),
      ),
    )
    // Read step by step the row comes out short; read from the greedy loop's captures, misaligned.
    expect(messages(r, 'error', 'attention')[0]).toMatch(
      /^The attention (output at output step 1 of .* has 3 weights for 4 source positions: it must be \[B, S\], one weight per encoder state|weights at output step 1 of .* sum to [\d.]+, not 1: .*)\.$/,
    )
  })

  it('NaN logits from finite weights: translation refused', async () => {
    const r = await checkFile(editedModel(tiny('bahdanau'), (m) => nanOf(m, 'logits')))
    expect(messages(r, 'error', 'translate')[0]).toMatch(
      /^The logits hold NaN or infinite values at output step 1 of ".*": check the weights and anything that divides or takes a logarithm\.$/,
    )
  })

  it('a model whose best token is always <pad>: it is never written, so the model writes nothing, and says why', async () => {
    const r = await checkFile(
      editedModel(tiny('bahdanau'), (m) => {
        const onehot = new Array<number>(400).fill(0)
        onehot[0] = 50
        after(m, 'logits', (raw) => {
          const zero = `${raw}_zero`
          node(m, 'Mul', [raw, constant(m, [0], [1])], [zero])
          node(m, 'Add', [zero, constant(m, onehot, [400])], ['logits'])
        })
      }),
    )
    expect(messages(r, 'warning', 'translate')[0]).toMatch(
      /^The model writes nothing for either ".*" or ".*" \(<\/s> at once\): it is never allowed to write <pad>, <unk>, <s>, so check the weights and "al\.special_tokens"\.$/,
    )
  })

  it("padding not masked: a batch decodes differently from single sentences; where, why (the bidirectional encoder's backward half) and what it costs", async () => {
    const r = await checkFile(
      editedModel(tiny('bahdanau'), (m) => {
        const ones = 'mask_ignored'
        rewire(m, 'src_mask', ones)
        const zero = 'mask_zero'
        node(m, 'Mul', ['src_mask', constant(m, [0], [1])], [zero])
        node(m, 'Add', [zero, constant(m, [1], [1])], [ones])
      }),
    )
    expect(exitCode(r)).toBe(0)
    expect(messages(r, 'warning', 'batch')[0]).toMatch(
      /^Decoded in one batch with a sentence of another length, ".*" comes out differently from output token \d+ on: alone "[^"]+", in the batch "[^"]+": the encoder states of the real tokens change, in their second half only \(features 17–32\): a bidirectional encoder's backward direction reads the padding before the sentence; run it over the real tokens only: nn\.utils\.rnn\.pack_padded_sequence \(exports to ONNX\), or reverse each sentence within its length before the backward pass\. Meanwhile BLEU by length decodes this model one sentence at a time \(the same scores, slower\)\.$/,
    )
  })

  it("a state reshaped to a batch of 1 inside the graph: beam search fails with onnxruntime's reason", async () => {
    const r = await checkFile(
      editedModel(tiny('bahdanau'), (m) => after(m, 'next_state', (raw) => node(m, 'Reshape', [raw, constant(m, [1, 32], [2], T.INT64)], ['next_state']))),
    )
    expect(messages(r, 'error', 'beam')[0]).toMatch(/^Beam search \(4 hypotheses\) fails: .*cannot be reshaped.*\.$/)
    expect(messages(r, 'warning', 'batch')[0]).toMatch(
      /^One decoder step on a batch of two sentences \(4 and 10 tokens\) fails: .*The input tensor cannot be reshaped to the requested shape\. Input shape:\{2,32\}, requested shape:\{1,32\}; so BLEU by length decodes this model one sentence at a time \(the same scores, slower\)\.$/,
    )
    // onnxruntime's node names stay out of the messages, in the detail shown by --verbose.
    for (const f of r.findings) expect(f.message).not.toMatch(/Name:'|node/)
    expect(r.findings.find((f) => f.feature === 'beam')?.detail).toMatch(/Reshape node/)
  })

  it('an override the model ignores', async () => {
    const r = await checkFile(
      editedModel(tiny('bahdanau'), (m) => {
        const off = 'override_off'
        rewire(m, 'override_on', off)
        node(m, 'Mul', ['override_on', constant(m, [0], [1])], [off])
      }),
    )
    expect(messages(r, 'error', 'what-if')).toEqual([
      expect.stringMatching(
        /^With override_on = 1 and uniform weights in attn_override \(1\/4 each\), the attention output at the first step is 0\.\d+ at source position 1: the model must use attn_override in place of its own weights \(and return it as "attention"\)\.$/,
      ),
    ])
  })
})

describe('local attention: p_t, the window, the Gaussian', () => {
  it('a window that is not [p_t − D, p_t + D] for the declared D', async () => {
    const r = await checkFile(editedModel(tiny('local-p'), (m) => setMeta(m, 'al.window_d', '3')))
    expect(messages(r, 'error', 'local')[0]).toMatch(
      /^The window at output step 1 of ".*" is \[-?[\d.]+, [\d.]+\], not \[p_t − D, p_t \+ D\] = \[-?[\d.]+, [\d.]+\] with D = 3 from "al\.window_d"\.$/,
    )
  })

  it('p_t outside [0, S]', async () => {
    const r = await checkFile(editedModel(tiny('local-p'), (m) => scale(m, 'position', 'Add', 100)))
    expect(messages(r, 'error', 'local')[0]).toMatch(
      /^p_t at output step 1 of ".*" is 10\d\.?\d*, outside \[0, 4\] for a source of S = 4 tokens \(with <\/s>\): p_t = S·sigmoid\(…\)\.$/,
    )
  })

  it('p_t that is not a number', async () => {
    const r = await checkFile(editedModel(tiny('local-p'), (m) => nanOf(m, 'position')))
    expect(messages(r, 'error', 'local')[0]).toMatch(/^The position p_t at output step 1 of ".*" is NaN, not a number\.$/)
  })

  it('weight outside the window', async () => {
    const r = await checkFile(editedModel(tiny('local-p'), (m) => scale(m, 'attention', 'Add', 0.001)))
    // The short probe sentence has no position outside its window; the long one does.
    expect(messages(r, 'error', 'local')).toContainEqual(
      expect.stringMatching(
        /^Source position \d+ gets weight 0\.001\d* at output step \d+ of ".*", though it lies outside the window \[.*\] \(D = 4 from "al\.window_d"\): weights outside the window must be 0\.$/,
      ),
    )
  })

  it('a gaussian that is not exp(−(s − p_t)²/(2σ²))', async () => {
    const r = await checkFile(editedModel(tiny('local-p'), (m) => scale(m, 'gaussian', 'Mul', 0.5)))
    expect(messages(r, 'error', 'local')[0]).toMatch(
      /^The gaussian output at output step 1 of ".*" is [\d.]+ at source position \d, not exp\(−\(s − p_t\)²\/\(2σ²\)\) = [\d.]+ with σ = D\/2 = 2 \(D from "al\.window_d"\)\.$/,
    )
  })

  it('attention that is not align × gaussian', async () => {
    const r = await checkFile(editedModel(tiny('local-p'), (m) => scale(m, 'attention', 'Mul', 0.5)))
    expect(messages(r, 'error', 'local')[0]).toMatch(
      /^The attention at output step 1 of ".*" is [\d.]+ at source position \d, not align × gaussian = [\d.]+\.$/,
    )
  })

  it('align that does not sum to 1', async () => {
    const r = await checkFile(editedModel(tiny('local-p'), (m) => scale(m, 'align', 'Mul', 3)))
    expect(messages(r, 'error', 'local')[0]).toMatch(
      /^The align output at output step 1 of ".*" sums to 3\.000, not 1: it must be the softmax of the scores over the window\.$/,
    )
  })
})

describe('forecasters', () => {
  it('a doc-conformant forecaster whose encoder reads src_mask: fed, and it forecasts', async () => {
    const path = editedModel(join(BUNDLED_MODELS, 'taylor-none.onnx'), (m) => {
      addInput(m, 'src_mask', ['batch', 'history'])
      after(m, 'encoder_out', (raw) => {
        const sum = 'mask_sum'
        node(m, 'ReduceMean', ['src_mask'], [sum], { keepdims: [0] })
        const col = 'mask_col'
        node(m, 'Reshape', [sum, constant(m, [-1, 1, 1], [3], T.INT64)], [col])
        node(m, 'Mul', [raw, col], ['encoder_out'])
      })
    })
    const r = await checkFile(path)
    expect(r.fatal).toEqual([])
    expect(r.findings).toEqual([])
    expect(r.passed).toEqual(['a forecast of 48 steps from 384 history steps', 'a batch of two forecast origins'])
  })

  it('a forecaster that ignores the override: what-if attention will not work', async () => {
    const r = await checkFile(
      editedModel(join(BUNDLED_MODELS, 'taylor-luong-general.onnx'), (m) => {
        rewire(m, 'override_on', 'override_off')
        node(m, 'Mul', ['override_on', constant(m, [0], [1])], ['override_off'])
      }),
    )
    expect(messages(r, 'error', 'what-if')).toEqual([
      expect.stringMatching(
        /^With override_on = 1 and uniform weights in attn_override \(1\/384 each\), the attention output at the first step is [\d.e-]+ at history step \d+: the model must use attn_override in place of its own weights \(and return it as "attention"\)\.$/,
      ),
    ])
  })

  it('NaN forecasts', async () => {
    const r = await checkFile(editedModel(join(BUNDLED_MODELS, 'taylor-none.onnx'), (m) => nanOf(m, 'forecast')))
    expect(messages(r, 'error', 'forecast')).toEqual([
      'The forecast holds NaN or infinite values at step 1: check the weights and anything that divides or takes a logarithm.',
    ])
    expect(exitCode(r)).toBe(1)
  })

  it('a forecaster whose batch is fixed at 1', async () => {
    const r = await checkFile(
      editedModel(join(BUNDLED_MODELS, 'taylor-none.onnx'), (m) =>
        fixAxis(m, ['history', 'encoder_states', 'state', 'prev_value', 'step_features', 'encoder_out', 'decoder_init', 'forecast', 'next_state'], 0, 1),
      ),
    )
    expect(exitCode(r)).toBe(0)
    expect(messages(r, 'warning', 'batch')[0]).toMatch(
      /^The batch size is fixed at 1 \(input "history" is \[1, history, 5\]\), so forecast-eval runs one origin at a time \(slower\)/,
    )
  })
})

describe('the same checks when the app opens a model', () => {
  it('refuses a model that cannot translate, in one sentence, and the reason', async () => {
    const service = new InferenceService()
    const path = editedModel(tiny('bahdanau'), (m) => nanOf(m, 'logits'))
    await expect(service.open(path)).rejects.toThrow(/^The model opens but cannot be used: The logits hold NaN or infinite values at output step 1/)
    expect(service.openPaths()).toEqual([])
    await service.closeAll()
  })

  it('reports the rest with the model and keeps those features off: beam refused, BLEU by length one sentence at a time', async () => {
    const service = new InferenceService()
    const path = editedModel(tiny('bahdanau'), (m) => fixAxis(m, BATCH_TENSORS, 0, 1))
    const info = await service.open(path)
    expect(info.findings.map((f) => `${f.level} ${f.feature}`)).toEqual(['error beam', 'warning batch'])
    await expect(service.translate(path, 'a dog runs', { beam: 4 })).rejects.toThrow(
      /^This model cannot use beam search: Beam search decodes its hypotheses as one batch, but the batch size is fixed at 1/,
    )
    const greedy = await service.translate(path, 'a dog runs')
    expect(greedy.tgtTokens.length).toBeGreaterThan(0)
    // Without the fallback to one sentence per batch this fails with onnxruntime's shape error.
    const r = await service.evaluate(path, ['a dog runs', 'two men are sitting on a bench'], ['un chien court', 'deux hommes'])
    expect(r.sentences).toBe(2)
    await service.closeAll()
  })

  it('names the model that fails in With/without', async () => {
    const service = new InferenceService()
    const broken = editedModel(tiny('bahdanau'), (m) => {
      setMeta(m, 'al.name', 'my-broken-model')
      after(m, 'next_state', (raw) => node(m, 'Reshape', [raw, constant(m, [1, 32], [2], T.INT64)], ['next_state']))
    })
    // Beam search runs the hypotheses as a batch: the reshape to one row fails there.
    await expect(service.compare([tiny('none'), broken], 'a dog runs', { beam: 2 })).rejects.toThrow(/^my-broken-model: /)
    await service.closeAll()
  })
})
