/**
 * Where an API error shows: with a `field`, under that input (the form asks
 * `fieldError('address')`); otherwise, and for a 429 (with the wait counted
 * down), in an alert above the form.
 */
import { Alert } from '@mantine/core'
import { useEffect, useState } from 'react'
import { ApiError } from '../api/client'
import { useI18n } from '../i18n'

export function fieldError(error: unknown, field: string): string | undefined {
  return error instanceof ApiError && error.field === field ? error.message : undefined
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
  if (error instanceof ApiError && error.field && fields.includes(error.field)) return null
  let text: string
  if (error instanceof ApiError && error.status === 429) {
    if (left === 0) return null
    text = t.common.rateLimited(left)
  } else if (error instanceof ApiError && error.status === 0) text = t.common.network
  else text = error instanceof Error ? error.message : String(error)
  return (
    <Alert color="red" role="alert" data-testid="error-alert" data-code={error instanceof ApiError ? error.code : undefined}>
      {text}
    </Alert>
  )
}
