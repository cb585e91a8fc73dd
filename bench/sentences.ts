/** The sentences the benches time, in one place: bench/animation.ts and bench/animation-ab.ts time the same one. */

/** 25 words and a full stop. */
export const SENTENCE_25 = 'A young man in a red jacket is standing on the corner of a busy street while his two friends wait for the bus outside .'
