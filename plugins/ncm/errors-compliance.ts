/** Compliance's coded errors (helper ha); messages in locales/compliance-{en,ru}.ts. */
export const NcmComplianceErrors = {} as const
