import { describe, expect, it } from 'vitest'
import { calendarFeatures, irregularity, parseSeriesCsv, timestampMinutes } from '../../../src/shared/series'

describe('series CSV and calendar features', () => {
  it('reads timestamp,value rows', () => {
    const s = parseSeriesCsv('timestamp,demand_mw\n2000-06-05T00:00:00Z,22262\r\n2000-06-05T00:30:00Z,21756\n\n', 'x.csv')
    expect(s).toEqual({ name: 'x.csv', timestamps: ['2000-06-05T00:00:00Z', '2000-06-05T00:30:00Z'], values: [22262, 21756], heldOutStart: null })
  })

  it.each([
    ['', 'The CSV has no rows under its header.'],
    ['time,value\n2000-06-05T00:00:00Z,1', 'The CSV must start with a header "timestamp,<value column>", like "timestamp,demand_mw".'],
    ['timestamp,v\nyesterday,1', 'Line 2 of the CSV has no timestamp like 2000-06-05T00:30:00Z.'],
    ['timestamp,v\n2000-06-05T00:00:00Z,1\n2000-06-05T00:30:00Z,', 'Line 3 of the CSV has no number in its value column.'],
    ['timestamp,v\n2000-13-05T00:00:00Z,1', 'Line 2 of the CSV has no timestamp like 2000-06-05T00:30:00Z.'],
    ['timestamp,v\n2000-02-31T00:00:00Z,1', 'Line 2 of the CSV has no timestamp like 2000-06-05T00:30:00Z.'],
  ])('refuses %j in one sentence', (text, msg) => {
    expect(() => parseSeriesCsv(text, 'x')).toThrow(msg)
  })

  it('time of day and day of week as training/forecast.py computes them (Monday = 0)', () => {
    // Monday 14 August 2000, midnight: both angles are 0.
    const [a, b, c, d] = calendarFeatures('2000-08-14T00:00:00Z')
    expect([a, b, c, d].map((x) => +x.toFixed(6))).toEqual([0, 1, 0, 1])
    // Sunday 20 August, noon: half a day, day 6 of 7.
    const f = calendarFeatures('2000-08-20T12:00:00Z')
    expect(f[0]).toBeCloseTo(0, 6)
    expect(f[1]).toBeCloseTo(-1, 6)
    expect(f[2]).toBeCloseTo(Math.sin((2 * Math.PI * 6) / 7), 6)
    expect(f[3]).toBeCloseTo(Math.cos((2 * Math.PI * 6) / 7), 6)
    // Years before 100 stay as written: Python's date(50, 1, 1).weekday() is 5 (a Saturday).
    expect(calendarFeatures('0050-01-01T00:00')[2]).toBeCloseTo(Math.sin((2 * Math.PI * 5) / 7), 6)
    // 18:30 is 1110 minutes into the day.
    expect(calendarFeatures('2000-06-05 18:30')[0]).toBeCloseTo(Math.sin((2 * Math.PI * 1110) / 1440), 6)
  })

  it('finds the first gap in a series that should be regular', () => {
    expect(timestampMinutes('2000-06-05T00:30:00Z') - timestampMinutes('2000-06-05T00:00:00Z')).toBe(30)
    const s = { timestamps: ['2000-06-05T00:00Z', '2000-06-05T00:30Z', '2000-06-05T01:30Z'] }
    expect(irregularity(s, 30, 0, 2)).toBeNull()
    expect(irregularity(s, 30)).toBe('The series is not one value every 30 minutes: 2000-06-05T00:30Z is followed by 2000-06-05T01:30Z.')
  })
})
