/** The read side's coded errors (helper hd); messages in locales/read-side-{en,ru}.ts. */
export const NcmReadSideErrors = {} as const
