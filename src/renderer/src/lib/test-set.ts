/**
 * The user's own test set in the corpus view: a source file and a reference file, one sentence
 * per line, picked or dropped.
 */
export interface PickedFile {
  name: string
  text: string
}

/**
 * Which dropped file is the source and which the reference: by the language code a file name
 * ends in (`test.en`, `newstest2014-deen.de`), else in the order they were dropped.
 */
export function assignDropped<F extends { name: string }>(files: F[], srcLang: string, tgtLang: string): { source?: F; reference?: F } {
  const ends = (f: F, lang: string) => new RegExp(`[._-]${lang.replace(/[^\w-]/g, '')}(\\.txt)?$`, 'i').test(f.name)
  let source = files.find((f) => ends(f, srcLang) && !ends(f, tgtLang))
  let reference = files.find((f) => f !== source && ends(f, tgtLang))
  const rest = files.filter((f) => f !== source && f !== reference)
  source ??= rest.shift()
  reference ??= rest.shift()
  return { source, reference }
}

/** Lines of a test-set file, as the host counts them. */
export function lineCount(text: string): number {
  const t = text.replace(/^\uFEFF/, '').replace(/\r?\n$/, '')
  return t === '' ? 0 : t.split(/\r?\n/).length
}
