/** A text in the platform's languages: English always, Russian when translated (English shows otherwise). */
export interface LocalizedText {
  en: string
  ru?: string
}
