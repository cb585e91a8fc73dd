import { timestampMinutes } from './series'

/**
 * Dates and times of a series in the interface's language, through Intl.DateTimeFormat: "Tue
 * 15 Aug 10:00" in English, "8月15日周二 10:00" in Chinese. Timestamps are read as written (no
 * time-zone shift), like everywhere else in the forecasting code.
 */
export type TimeFormat = (ts: string, withDay: boolean) => string

const LOCALES = { en: 'en-GB', zh: 'zh-CN' } as const

export function timeFormat(lang: keyof typeof LOCALES): TimeFormat {
  const day = new Intl.DateTimeFormat(LOCALES[lang], { weekday: 'short', day: 'numeric', month: 'short', timeZone: 'UTC' })
  const time = new Intl.DateTimeFormat(LOCALES[lang], { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'UTC' })
  return (ts, withDay) => {
    const minutes = timestampMinutes(ts)
    if (!Number.isFinite(minutes)) return ts
    const t = new Date(minutes * 60_000)
    const hhmm = time.format(t)
    if (!withDay) return hhmm
    // en-GB writes "Tue 15 Aug" with no comma; some ICU versions put one after the weekday.
    const d = day.format(t).replace(/,/g, '')
    return minutes % 1440 === 0 ? d : `${d} ${hhmm}`
  }
}
