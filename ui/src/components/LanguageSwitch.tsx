import { SegmentedControl } from '@mantine/core'
import { useQueryClient } from '@tanstack/react-query'
import { useI18n, type Language } from '../i18n'

/** English / Русский; the server's messages follow (the queries are asked again in the new language). */
export function LanguageSwitch() {
  const { t, language, setLanguage } = useI18n()
  const qc = useQueryClient()
  return (
    <SegmentedControl
      size="xs"
      aria-label={t.lang.label}
      value={language}
      onChange={(v) => {
        setLanguage(v as Language)
        void qc.invalidateQueries()
      }}
      data={[
        { value: 'en', label: t.lang.en },
        { value: 'ru', label: t.lang.ru },
      ]}
    />
  )
}
