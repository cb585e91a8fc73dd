/**
 * The contribution methods' arithmetic on tensors tapped from a pre-norm Transformer (issue 41),
 * in float64. The equations are written out in training/contributions_reference.py, the
 * independent reference these functions are tested against (test/fixtures/contributions).
 *
 * A pre-norm attention block: y_i = x_i + Σ_h W_O^h Σ_j a^h_ij (W_V^h LN(z_j) + b_V^h) + b_O, with
 * z_j the vectors the values are read from (self-attention: the block's inputs x; cross-attention:
 * the encoder's last residual stream, read through its final norm) and LN(z) = L_j(z) + β.
 */

export type Vec = Float64Array | Float32Array

/** An attention block's value and output projections, as stored: [out][in] row-major, d × d. */
export interface BlockWeights {
  d: number
  heads: number
  wv: Float32Array
  bv: Float32Array
  wo: Float32Array
  /** γ, β and ε of the layer norm the values are read through. */
  gamma: Float32Array
  beta: Float32Array
  eps: number
}

/** What a block's decomposition includes; both true is the method. The tests turn one off to show that it matters. */
export interface AltiOptions {
  residual: boolean
  layerNorm: boolean
}

export const FULL: AltiOptions = { residual: true, layerNorm: true }

/** z's mean and 1 / √(var z + ε). */
function moments(z: Vec, eps: number): { mu: number; inv: number } {
  const d = z.length
  let mu = 0
  for (let i = 0; i < d; i++) mu += z[i]
  mu /= d
  let v = 0
  for (let i = 0; i < d; i++) v += (z[i] - mu) ** 2
  return { mu, inv: 1 / Math.sqrt(v / d + eps) }
}

/** The layer norm's linear part: γ ⊙ (z − mean z) / √(var z + ε). */
export function lnLinear(z: Vec, gamma: Float32Array, eps: number): Float64Array {
  const d = z.length
  const { mu, inv } = moments(z, eps)
  const out = new Float64Array(d)
  for (let i = 0; i < d; i++) out[i] = gamma[i] * (z[i] - mu) * inv
  return out
}

/** a[ai …] · b[bi …] over n, four sums at once: one sum waits on each add, four keep the CPU busy. */
function dot(a: Float32Array, ai: number, b: Float64Array, bi: number, n: number): number {
  let s0 = 0
  let s1 = 0
  let s2 = 0
  let s3 = 0
  let i = 0
  for (; i + 3 < n; i += 4) {
    s0 += a[ai + i] * b[bi + i]
    s1 += a[ai + i + 1] * b[bi + i + 1]
    s2 += a[ai + i + 2] * b[bi + i + 2]
    s3 += a[ai + i + 3] * b[bi + i + 3]
  }
  for (; i < n; i++) s0 += a[ai + i] * b[bi + i]
  return s0 + s1 + s2 + s3
}

/** Per head h: W_O^h (W_V^h z + (withBias ? b_V^h : 0)), written to out[at + h·d …]. */
export function headOutputsInto(z: Vec, w: BlockWeights, withBias: boolean, out: Float64Array, at: number): void {
  const { d, heads } = w
  const dh = d / heads
  // z as float64 keeps dot's reads of one type
  const zz = z instanceof Float64Array ? z : Float64Array.from(z)
  const u = new Float64Array(d)
  for (let o = 0; o < d; o++) u[o] = (withBias ? w.bv[o] : 0) + dot(w.wv, o * d, zz, 0, d)
  for (let h = 0; h < heads; h++) {
    const base = at + h * d
    for (let k = 0; k < d; k++) out[base + k] = dot(w.wo, k * d + h * dh, u, h * dh, dh)
  }
}

/** Per head h: W_O^h (W_V^h z + (withBias ? b_V^h : 0)). */
export function headOutputs(z: Vec, w: BlockWeights, withBias: boolean): Float64Array[] {
  const out = new Float64Array(w.heads * w.d)
  headOutputsInto(z, w, withBias, out, 0)
  return Array.from({ length: w.heads }, (_, h) => out.subarray(h * w.d, (h + 1) * w.d))
}

/**
 * Every key's per-head outputs W_O^h W_V^h L_j(z_j), flat [j][h][k], computed here from the
 * weights (`layerNorm` false: from z_j itself, the tests' omission).
 */
export function headValues(z: Vec[], w: BlockWeights, layerNorm = true): Float64Array {
  const out = new Float64Array(z.length * w.heads * w.d)
  z.forEach((zj, j) => headOutputsInto(layerNorm ? lnLinear(zj, w.gamma, w.eps) : zj, w, false, out, j * w.heads * w.d))
  return out
}

/** Per head, what the norm's β and the value bias add to every value: W_O^h (W_V^h β + b_V^h), flat [h][k]. */
export function valueBias(w: BlockWeights): Float64Array {
  const out = new Float64Array(w.heads * w.d)
  headOutputsInto(w.beta, w, true, out, 0)
  return out
}

/**
 * The same from what the graph computed: the per-head products W_O^h v_j^h of its value
 * projections v_j = W_V LN(z_j) + b_V ([N][H][d], tapped), less `bias` (valueBias) where given;
 * `sign` 1 adds it instead (a Hugging Face folder taps the values without it).
 */
export function tappedHeadValues(perHead: Float32Array, w: BlockWeights, bias: Float64Array | null, sign: 1 | -1 = -1): Float64Array {
  const out = Float64Array.from(perHead)
  if (bias) {
    const hd = w.heads * w.d
    for (let at = 0; at < out.length; at += hd) for (let k = 0; k < hd; k++) out[at + k] += sign * bias[k]
  }
  return out
}

const l1 = (v: ArrayLike<number>) => {
  let s = 0
  for (let i = 0; i < v.length; i++) s += Math.abs(v[i])
  return s
}

/** Divides a row by its sum (a row of zeros stays zeros). */
function normalised(c: number[]): number[] {
  const s = c.reduce((a, b) => a + b, 0)
  return s > 0 ? c.map((v) => v / s) : c.map(() => 0)
}

/**
 * A post-norm block's norm (Marian, BART: y_i = LN(z_i), z_i = x_i + the attention's output):
 * its inputs z and γ, ε. LN is linear in each contributor once z_i's deviation is fixed, so a
 * contributor t reaches y_i as L_i(t) = γ ⊙ (t − mean t) / √(var z_i + ε) (Kobayashi et al. 2021,
 * Ferrando et al. 2022); what the biases and β add belongs to no token.
 */
export interface PostNormInput {
  z: Vec[]
  gamma: Float32Array
  eps: number
}

/** Per query i of a post-norm block: 1 / √(var z_i + ε), the only part of L_i that depends on i. */
function postScales(post: PostNormInput): Float64Array {
  return Float64Array.from(post.z, (zi) => moments(zi, post.eps).inv)
}

/** γ ⊙ (t − mean t) in place: L_i(t) without its per-query scale. */
function centred(t: Float64Array, at: number, d: number, gamma: Float32Array): void {
  let mt = 0
  for (let k = 0; k < d; k++) mt += t[at + k]
  mt /= d
  for (let k = 0; k < d; k++) t[at + k] = gamma[k] * (t[at + k] - mt)
}

/**
 * r − Σ_h c_h v_h, v_h = v[at + h·d …]: into r, or with `l1` only its L1 norm returned (r then
 * holds the passes before the last). Four heads a pass (a missing head reads head g's vector times
 * 0): one pass per head is three times slower in V8.
 */
function lessHeads(r: Float64Array, c: Float64Array, v: Vec, at: number, heads: number, d: number, l1: boolean): number {
  let norm = 0
  for (let g = 0; g < heads; g += 4) {
    const b0 = at + g * d
    const c0 = c[g]
    const c1 = g + 1 < heads ? c[g + 1] : 0
    const c2 = g + 2 < heads ? c[g + 2] : 0
    const c3 = g + 3 < heads ? c[g + 3] : 0
    const b1 = g + 1 < heads ? b0 + d : b0
    const b2 = g + 2 < heads ? b0 + 2 * d : b0
    const b3 = g + 3 < heads ? b0 + 3 * d : b0
    if (l1 && g + 4 >= heads) for (let k = 0; k < d; k++) norm += Math.abs(r[k] - c0 * v[b0 + k] - c1 * v[b1 + k] - c2 * v[b2 + k] - c3 * v[b3 + k])
    else for (let k = 0; k < d; k++) r[k] = r[k] - c0 * v[b0 + k] - c1 * v[b1 + k] - c2 * v[b2 + k] - c3 * v[b3 + k]
  }
  return norm
}

/**
 * ALTI of one attention block. `x` the block's inputs at the query positions (the residual), `y`
 * its outputs there, `values` each key's W_O^h W_V^h L_j(z_j) ([Nk][H][d], headValues or
 * tappedHeadValues), `a` the weights [H][Nq][Nk].
 * `residual`: 'diagonal' (self-attention: query i's residual is key i's token, so it adds to
 * column i) or 'column' (cross-attention: the residual is one more column after the keys).
 * Each entry is c_ij = max(0, ‖y_i‖₁ − ‖y_i − T_i(z_j)‖₁), a row divided by its sum.
 * `post`: the block is post-norm, `y` its norm's output, and every T_i(z_j) goes through L_i.
 */
export function altiBlock(
  x: Vec[],
  y: Vec[],
  values: Float64Array,
  a: ArrayLike<number>[][],
  w: BlockWeights,
  residual: 'diagonal' | 'column',
  opts: AltiOptions = FULL,
  post: PostNormInput | null = null,
): number[][] {
  const { d, heads } = w
  const hd = heads * d
  const keys = values.length / hd
  // L_i(Σ_h a_h v_h) = s_i · Σ_h a_h γ ⊙ (v_h − mean v_h), s_i = 1 / √(var z_i + ε): the centring
  // is done once per key and head, the scale folded into the weights.
  let vals = values
  let scale: Float64Array | null = null
  if (post) {
    vals = Float64Array.from(values)
    for (let at = 0; at < vals.length; at += d) centred(vals, at, d, post.gamma)
    scale = postScales(post)
  }
  const yi = new Float64Array(d)
  const xo = new Float64Array(d)
  const r = new Float64Array(d)
  const al = new Float64Array(heads)
  const rowOf: ArrayLike<number>[] = new Array(heads)
  return x.map((xi, i) => {
    // the residual as it reaches y_i
    xo.set(xi)
    if (post && scale) {
      centred(xo, 0, d, post.gamma)
      for (let k = 0; k < d; k++) xo[k] *= scale[i]
    }
    const yRow = y[i]
    for (let k = 0; k < d; k++) yi[k] = opts.residual ? yRow[k] : yRow[k] - xo[k]
    const ny = l1(yi)
    const s = scale ? scale[i] : 1
    for (let h = 0; h < heads; h++) rowOf[h] = a[h][i]
    const c = new Array<number>(keys).fill(0)
    for (let j = 0; j < keys; j++) {
      let any = false
      for (let h = 0; h < heads; h++) {
        al[h] = rowOf[h][j] * s
        if (al[h] !== 0) any = true
      }
      const diagonal = opts.residual && residual === 'diagonal' && i === j
      // T = 0: ‖y − T‖₁ = ‖y‖₁, so c = 0
      if (!any && !diagonal) continue
      // ‖y_i − T_i(z_j)‖₁ (less the residual on the diagonal)
      if (diagonal) for (let k = 0; k < d; k++) r[k] = yi[k] - xo[k]
      else r.set(yi)
      c[j] = Math.max(0, ny - lessHeads(r, al, vals, j * hd, heads, d, true))
    }
    if (residual === 'column') {
      let dist = 0
      for (let k = 0; k < d; k++) dist += Math.abs(yi[k] - (opts.residual ? xo[k] : 0))
      c.push(Math.max(0, ny - dist))
    }
    return normalised(c)
  })
}

/**
 * Kobayashi et al.'s norms of one cross-attention block: per head ‖a^h_tj f^h(h_j)‖₂, with
 * f^h(h_j) = W_O^h (W_V^h h_j + b_V^h) given flat as `f` [S][H][d].
 */
export function crossNorms(
  f: Float64Array | Float32Array,
  a: ArrayLike<number>[][],
  w: BlockWeights,
): { perHead: number[][][]; total: number[][]; outNorm: number[] } {
  const { d, heads } = w
  const hd = heads * d
  const T = a[0].length
  const S = f.length / hd
  // Per source piece j, the Gram matrix of its heads' vectors, G_j[h][g] = f^h(h_j) · f^g(h_j):
  // ‖Σ_h a_h f^h‖² = Σ_hg a_h a_g G_j[h][g] costs H² a cell where the vectors cost H·d.
  const gram = new Float64Array(S * heads * heads)
  for (let j = 0; j < S; j++)
    for (let h = 0; h < heads; h++)
      for (let g = h; g < heads; g++) {
        const bh = j * hd + h * d
        const bg = j * hd + g * d
        let n = 0
        for (let k = 0; k < d; k++) n += f[bh + k] * f[bg + k]
        gram[(j * heads + h) * heads + g] = n
        gram[(j * heads + g) * heads + h] = n
      }
  const perHead = Array.from({ length: heads }, () => Array.from({ length: T }, () => new Array<number>(S).fill(0)))
  const total = Array.from({ length: T }, () => new Array<number>(S).fill(0))
  const outNorm = new Array<number>(T).fill(0)
  const out = new Float64Array(d)
  const alpha = new Float64Array(heads)
  for (let t = 0; t < T; t++) {
    out.fill(0)
    for (let j = 0; j < S; j++) {
      for (let h = 0; h < heads; h++) alpha[h] = a[h][t][j]
      const gj = j * heads * heads
      let n = 0
      for (let h = 0; h < heads; h++) {
        const ah = alpha[h]
        perHead[h][t][j] = Math.abs(ah) * Math.sqrt(gram[gj + h * heads + h])
        for (let g = 0; g < heads; g++) n += ah * alpha[g] * gram[gj + h * heads + g]
      }
      for (let h = 0; h < heads; h++) alpha[h] = -alpha[h]
      lessHeads(out, alpha, f, j * hd, heads, d, false)
      // rounding can leave a vanishing sum a hair below 0
      total[t][j] = Math.sqrt(Math.max(0, n))
    }
    outNorm[t] = Math.sqrt(l2sq(out))
  }
  return { perHead, total, outNorm }
}

const l2sq = (v: Float64Array) => {
  let s = 0
  for (let k = 0; k < v.length; k++) s += v[k] * v[k]
  return s
}

const eye = (n: number): number[][] => Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 1 : 0)))

function matmul(a: number[][], b: number[][]): number[][] {
  const n = b[0]?.length ?? 0
  return a.map((row) => {
    const out = new Array<number>(n).fill(0)
    row.forEach((v, k) => {
      if (v === 0) return
      const bk = b[k]
      for (let j = 0; j < n; j++) out[j] += v * bk[j]
    })
    return out
  })
}

/**
 * ALTI+ (and rollout, given rollout's matrices): the encoder's layers by rollout
 * (R_enc = C_L ⋯ C_1), then each decoder layer as a matrix over [S source | T target] tokens, the
 * source rows the identity, target row t = [cross_t,src ; cross_t,res · self_t,:], applied in turn.
 */
export function combine(encoder: number[][][], self: number[][][], cross: number[][][]): { source: number[][]; target: number[][]; sourceShare: number[] } {
  const S = encoder[0].length
  const T = self[0].length
  const N = S + T
  let renc = eye(S)
  for (const c of encoder) renc = matmul(c, renc)
  // The target rows of R over [S | T]; R's source rows stay [R_enc | 0] through every decoder layer.
  let r = Array.from({ length: T }, (_, t) => {
    const row = new Float64Array(N)
    row[S + t] = 1
    return row
  })
  self.forEach((sa, l) => {
    r = r.map((_, t) => {
      const row = new Float64Array(N)
      const ca = cross[l][t]
      for (let j = 0; j < S; j++) {
        const c = ca[j]
        if (c === 0) continue
        const src = renc[j]
        for (let k = 0; k < S; k++) row[k] += c * src[k]
      }
      for (let s = 0; s < T; s++) {
        const c = ca[S] * sa[t][s]
        if (c === 0) continue
        const rs = r[s]
        for (let k = 0; k < N; k++) row[k] += c * rs[k]
      }
      return row
    })
  })
  const source = r.map((row) => Array.from(row.subarray(0, S)))
  const target = r.map((row) => Array.from(row.subarray(S)))
  return { source, target, sourceShare: source.map((row) => row.reduce((x, y) => x + y, 0)) }
}

/** Rollout's matrix of one self-attention: 0.5 · (head mean) + 0.5 · I. */
export function rolloutSelf(a: ArrayLike<number>[][]): number[][] {
  const H = a.length
  const n = a[0].length
  return Array.from({ length: n }, (_, i) =>
    Array.from({ length: a[0][i].length }, (_, j) => (0.5 * a.reduce((s, ah) => s + ah[i][j], 0)) / H + (i === j ? 0.5 : 0)),
  )
}

/** Rollout's row of one cross-attention: 0.5 · (head mean) over the source, 0.5 on the residual (the last column). */
export function rolloutCross(a: ArrayLike<number>[][]): number[][] {
  const H = a.length
  return a[0].map((row, t) => [...Array.from({ length: row.length }, (_, j) => (0.5 * a.reduce((s, ah) => s + ah[t][j], 0)) / H), 0.5])
}
