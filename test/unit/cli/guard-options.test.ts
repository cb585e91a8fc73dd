import { describe, expect, it } from 'vitest'
import { guardFrom, guardLabel, UsageError } from '../../../src/cli/options'
import { DEFAULT_REPEAT_GUARD, NO_REPEAT_GUARD } from '../../../src/shared/repeat-guard'

describe('the repeat-guard options of translate, eval and export', () => {
  it('the CLI: --no-repeat-ngram N, --max-repeat N (0 = off), --raw for both off', () => {
    // Not given: the model's default (the app's guards, or a Hugging Face folder's generation_config.json).
    expect(guardFrom({})).toEqual({})
    expect(guardFrom({ raw: true })).toEqual({ ...NO_REPEAT_GUARD, raw: true })
    expect(guardFrom({ 'no-repeat-ngram': '0', 'max-repeat': '4' })).toEqual({ noRepeatNgram: 0, maxRepeat: 4 })
    expect(() => guardFrom({ 'no-repeat-ngram': 'x' })).toThrow(new UsageError('--no-repeat-ngram must be a whole number from 0 (off) to 20'))
    expect(() => guardFrom({ 'max-repeat': '-1' })).toThrow('--max-repeat must be a whole number from 0 (off) to 20')
    expect(() => guardFrom({ raw: true, 'max-repeat': '2' })).toThrow('--raw turns both repeat guards off')
    expect(guardLabel(NO_REPEAT_GUARD)).toBe('raw (no repeat guards)')
    expect(guardLabel(DEFAULT_REPEAT_GUARD)).toBe('repeat guards no-repeat-ngram 3, max-repeat 3')
    expect(guardLabel({})).toBe("the model's default repeat guards")
    expect(guardLabel({ maxRepeat: 0 })).toBe("repeat guards max-repeat off, the other the model's default")
  })
})
