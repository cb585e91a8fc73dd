/**
 * The faces PDFKit embeds, each subset's bytes kept for the glyphs it holds. PDFKit makes a
 * subset of every face a PDF uses and encodes it when the PDF ends; for Noto Sans CJK, a CFF
 * collection whose subroutine indexes every subset carries whole, that is about a tenth of a
 * Chinese figure's PDF (issue 40, "Performance"), and the same figure at another size, or the
 * same sentence in another view, asks for the same glyphs again. A subset's bytes follow from its
 * face and its glyphs in their order (the order gives each glyph its number in the PDF's text),
 * so those are the key; the bytes are the ones fontkit wrote the first time.
 */
import type * as fontkit from 'fontkit'

/** What PDFKit uses of a fontkit subset. */
interface Subset {
  glyphs: number[]
  encode(): Uint8Array
}

/** The most bytes kept for one face; past it, its subsets are encoded afresh. */
const MOST_BYTES = 16 << 20

const kept = new WeakMap<fontkit.Font, { bytes: number; subsets: Map<string, Uint8Array> }>()
const wrapped = new WeakMap<fontkit.Font, fontkit.Font>()

function encodeKept(font: fontkit.Font, subset: Subset, encode: () => Uint8Array): Uint8Array {
  let own = kept.get(font)
  if (!own) kept.set(font, (own = { bytes: 0, subsets: new Map() }))
  const key = subset.glyphs.join(',')
  let bytes = own.subsets.get(key)
  if (!bytes) {
    bytes = encode()
    if (own.bytes + bytes.length > MOST_BYTES) [own.bytes, own.subsets] = [0, new Map()]
    own.subsets.set(key, bytes)
    own.bytes += bytes.length
  }
  return bytes
}

/** The face as PDFKit is given it: the face itself, but for its subsets, which keep their bytes. */
export function withKeptSubsets(font: fontkit.Font): fontkit.Font {
  let out = wrapped.get(font)
  if (!out) {
    const createSubset = (): Subset => {
      const subset = (font as unknown as { createSubset(): Subset }).createSubset()
      const encode = subset.encode.bind(subset)
      subset.encode = () => encodeKept(font, subset, encode)
      return subset
    }
    // Everything else read from the face itself, so what fontkit has parsed and cached is shared.
    out = new Proxy(font, { get: (face, key) => (key === 'createSubset' ? createSubset : Reflect.get(face, key)) })
    wrapped.set(font, out)
  }
  return out
}
