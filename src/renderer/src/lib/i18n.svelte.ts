/**
 * Interface language. Each component keeps its own strings as `{ en: {...}, zh: {...} }` and reads
 * `i18n.lang`, so views stay self-contained; the choice is remembered across restarts.
 */
export type Lang = 'en' | 'zh'
const KEY = 'attention-lens:lang'

class I18n {
  lang = $state<Lang>(
    ((): Lang => {
      const saved = typeof localStorage !== 'undefined' ? localStorage.getItem(KEY) : null
      return saved === 'zh' || saved === 'en' ? saved : 'en'
    })(),
  )

  set(lang: Lang): void {
    this.lang = lang
    localStorage.setItem(KEY, lang)
    document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en'
  }
}

export const i18n = new I18n()

/** Picks the current language's strings from a component's dictionary. */
export function pick<T>(messages: Record<Lang, T>): T {
  return messages[i18n.lang]
}
