/**
 * Where an API error shows: with a `field`, under that input (the form asks
 * `fieldError('address')`); otherwise, and for a 429 (with the wait counted
 * down), in an alert above the form. A 422 with several field errors (the
 * server's `errors`, or the browser's own check before sending) shows each
 * under its input at once; the alert says what no input of the form shows.
 */
import { Alert } from '@mantine/core'
import { useEffect, useState } from 'react'
import { ApiError } from '../api/client'
import type { FieldProblem } from '../api/rules'
import { useI18n } from '../i18n'

/** The error's problems, one per field (the envelope's own when it lists none). */
function problems(error: ApiError): readonly FieldProblem[] {
  return error.errors.length ? error.errors : [{ field: error.field, code: error.code, detail: error.message }]
}

export function fieldError(error: unknown, field: string): string | undefined {
  if (!(error instanceof ApiError)) return undefined
  return problems(error).find((p) => p.field === field)?.detail
}

/** The error's message when no input of the form shows it (`fields`: those the form has). */
export function ErrorAlert({ error, fields = [] }: { error: unknown; fields?: string[] }) {
  const { t } = useI18n()
  const wait = error instanceof ApiError && error.status === 429 ? (error.retryAfter ?? 1) : 0
  const [left, setLeft] = useState(wait)
  useEffect(() => {
    setLeft(wait)
    if (!wait) return
    const timer = setInterval(() => setLeft((s) => (s <= 1 ? (clearInterval(timer), 0) : s - 1)), 1000)
    return () => clearInterval(timer)
  }, [error, wait])
  if (!error) return null
  let text: string
  if (error instanceof ApiError && error.status === 429) {
    if (left === 0) return null
    text = t.common.rateLimited(left)
  } else if (error instanceof ApiError && error.status === 0) text = t.common.network
  else if (error instanceof ApiError) {
    const unshown = problems(error).filter((p) => !p.field || !fields.includes(p.field))
    if (!unshown.length) return null
    // A field the form has no input for (a nested value) is named, so the message can be placed.
    text = unshown.map((p) => (p.field && error.errors.length > 1 ? `${p.field}: ${p.detail}` : p.detail)).join(' ')
  } else text = error instanceof Error ? error.message : String(error)
  return (
    <Alert color="red" role="alert" data-testid="error-alert" data-code={error instanceof ApiError ? error.code : undefined}>
      {text}
    </Alert>
  )
}
