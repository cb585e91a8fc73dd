import { describe, expect, it } from 'vitest'
import { Predict } from '../../../src/renderer/src/lib/predict.svelte'

// Three steps; the model reads source word 1, then 0, then 2 most.
const ROWS = [
  [0.2, 0.7, 0.1],
  [0.6, 0.3, 0.1],
  [0.1, 0.2, 0.7],
]

function exercise(): Predict {
  const p = new Predict(() => ROWS.length)
  p.reset('sentence')
  return p
}

describe('Predict, then reveal', () => {
  it('a step revealed without a guess is "not guessed", not a miss', () => {
    const p = exercise()
    p.choose(1)
    p.reveal(ROWS[0])
    p.next()
    p.reveal(ROWS[1])
    expect({ right: p.right, guessed: p.guessed, done: p.done, notGuessed: p.notGuessed }).toEqual({ right: 1, guessed: 1, done: 2, notGuessed: 1 })
    p.next()
    p.choose(0)
    p.reveal(ROWS[2])
    expect({ right: p.right, guessed: p.guessed, done: p.done, notGuessed: p.notGuessed }).toEqual({ right: 1, guessed: 2, done: 3, notGuessed: 1 })
  })

  it('back() goes a step back and shows it as it was revealed; revealing it again counts nothing twice', () => {
    const p = exercise()
    p.choose(1)
    p.reveal(ROWS[0])
    p.next()
    expect([p.step, p.revealed]).toEqual([1, false])
    p.back()
    expect([p.step, p.revealed, p.guess, p.answer?.index, p.answer?.matched]).toEqual([0, true, 1, 1, true])
    p.reveal(ROWS[0])
    expect([p.right, p.done]).toEqual([1, 1])
    p.next()
    p.choose(2)
    p.reveal(ROWS[1])
    p.next()
    p.reveal(ROWS[2])
    p.next()
    expect(p.finished).toBe(true)
    // From the end, back to the last step, as revealed.
    p.back()
    expect([p.finished, p.step, p.revealed, p.answer?.index]).toEqual([false, 2, true, 2])
    expect([p.right, p.guessed, p.done]).toEqual([1, 2, 3])
    // Not before the first step.
    p.back()
    p.back()
    p.back()
    expect(p.step).toBe(0)
  })

  it('a guess cannot change once its step is revealed', () => {
    const p = exercise()
    p.choose(0)
    p.reveal(ROWS[0])
    p.choose(1)
    expect([p.guess, p.right]).toEqual([0, 0])
  })
})
