import { describe, expect, it } from 'vitest'
import { formatAer, scoreSet } from '../../../../src/engine/align/aer'
import { ChineseDictionary, corpusWords } from '../../../../src/engine/align/corpus'
import { trainIbm1 } from '../../../../src/engine/align/ibm1'
import { sureLinks } from '../../../../src/engine/align/pharaoh'
import { alignStatistically } from '../../../../src/engine/align/statistical'
import { growDiagFinalAnd } from '../../../../src/engine/align/symmetrize'
import { CancelledError } from '../../../../src/shared/errors'

/** A seeded generator, so the corpus is the same on every run. */
function rng(seed: number) {
  let a = seed
  return () => {
    a = (a * 1103515245 + 12345) % 2147483648
    return a / 2147483648
  }
}

/**
 * A synthetic parallel corpus: 60 source words, each with its own target word (a one-to-one
 * lexicon), sentences of 3–9 words, the target side the translated words in a shuffled order.
 */
function shuffledCorpus(n: number, seed = 7) {
  const r = rng(seed)
  const pairs: { src: string[]; tgt: string[] }[] = []
  const gold: [number, number][][] = []
  for (let k = 0; k < n; k++) {
    const len = 3 + Math.floor(r() * 7)
    const src: number[] = []
    while (src.length < len) {
      const w = Math.floor(r() * 60)
      if (!src.includes(w)) src.push(w)
    }
    const order = src.map((_, i) => i)
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(r() * (i + 1))
      ;[order[i], order[j]] = [order[j], order[i]]
    }
    // Target position p holds the translation of source word order[p].
    pairs.push({ src: src.map((w) => `s${w}`), tgt: order.map((i) => `t${src[i]}`) })
    gold.push(order.map((i, p) => [i, p]))
  }
  return { pairs, gold: gold.map((g) => sureLinks(g)) }
}

describe('the statistical aligner', () => {
  it('recovers a shuffled one-to-one lexicon (AER < 5)', async () => {
    const { pairs, gold } = shuffledCorpus(1500)
    const progress: string[] = []
    const r = await alignStatistically(pairs.slice(0, 100), pairs.slice(100), {
      onProgress: (p) => progress.push(`${p.direction} ${p.iteration}/${p.iterations}`),
    })
    const score = scoreSet(gold.slice(0, 100), r.links).set
    expect(score.aer, formatAer(score)).toBeLessThan(5)
    expect(progress).toEqual([1, 2, 3, 4, 5].map((i) => `forward ${i}/5`).concat([1, 2, 3, 4, 5].map((i) => `backward ${i}/5`)))
  })

  it('aligns nothing useful without data: one pair of unrelated words is left to the prior', async () => {
    // The control for the test above: with no co-occurrence evidence, the links follow the diagonal.
    const r = await alignStatistically([{ src: ['a', 'b', 'c'], tgt: ['x', 'y', 'z'] }], [])
    expect(r.links[0]).toEqual(
      sureLinks([
        [0, 0],
        [1, 1],
        [2, 2],
      ]),
    )
  })

  it('stops when cancelled', async () => {
    const { pairs } = shuffledCorpus(9000)
    const ac = new AbortController()
    const es = pairs.map((p) => Int32Array.from(p.src, (w) => Number(w.slice(1)) + 1))
    const fs = pairs.map((p) => Int32Array.from(p.tgt, (w) => Number(w.slice(1)) + 1))
    const run = trainIbm1(es, fs, { signal: ac.signal, iterations: 50 })
    ac.abort()
    await expect(run).rejects.toBeInstanceOf(CancelledError)
  })
})

describe('grow-diag-final-and', () => {
  it('grows from the intersection through neighbours in the union (a worked example)', () => {
    // forward {0-0, 1-1, 2-1, 3-3}, backward {0-0, 1-1, 1-2, 2-2, 0-3}; intersection {0-0, 1-1}.
    // Grow, scanning points in order: from 1-1, add 2-1 (source 2 unaligned) and 1-2 (target 2
    // unaligned), not 2-2 (both aligned by then); from 1-2, add its diagonal neighbour 0-3 (target 3
    // unaligned). Final-and: 3-3 is not added, its target 3 is aligned (0-3); 2-2 neither.
    const f = sureLinks([
      [0, 0],
      [1, 1],
      [2, 1],
      [3, 3],
    ])
    const b = sureLinks([
      [0, 0],
      [1, 1],
      [1, 2],
      [2, 2],
      [0, 3],
    ])
    expect(growDiagFinalAnd(f, b, 4, 4)).toEqual(
      sureLinks([
        [0, 0],
        [0, 3],
        [1, 1],
        [1, 2],
        [2, 1],
      ]),
    )
  })

  it('adds in the final step only links whose two words are both unaligned', () => {
    // 2-2 is in the forward direction only and far from the intersection: added (both words free);
    // 0-2 also, but its source word 0 is aligned: not added.
    expect(
      growDiagFinalAnd(
        sureLinks([
          [0, 0],
          [2, 2],
        ]),
        sureLinks([[0, 0]]),
        3,
        3,
      ),
    ).toEqual(
      sureLinks([
        [0, 0],
        [2, 2],
      ]),
    )
    expect(
      growDiagFinalAnd(
        sureLinks([
          [0, 0],
          [0, 2],
        ]),
        sureLinks([[0, 0]]),
        3,
        3,
      ),
    ).toEqual(sureLinks([[0, 0]]))
  })
})

describe('training text in the gold conventions', () => {
  it('splits punctuation, undoes French elisions and contractions, and lower-cases', () => {
    expect(corpusWords("L'homme parle du chien qu'il aime au parc.", 'fr')).toEqual([
      'le',
      'homme',
      'parle',
      'de',
      'le',
      'chien',
      'que',
      'il',
      'aime',
      'à',
      'le',
      'parc',
      '.',
    ])
    expect(corpusWords("The EU's pledge doesn't wait.", 'en')).toEqual(['the', 'eu', "'s", 'pledge', 'does', "n't", 'wait', '.'])
  })

  it('segments Chinese by the longest word of the dictionary, a character where none matches', () => {
    const d = new ChineseDictionary(['科学家', '科学', '一直', '猜想'])
    expect(corpusWords('科学家一直在猜想2010年。', 'zh', d)).toEqual(['科学家', '一直', '在', '猜想', '2010', '年', '。'])
  })
})
