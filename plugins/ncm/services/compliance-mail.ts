/**
 * The mail of a new violation: one per device and version, listing the `notify` rules the device
 * newly fails with their masked evidence, to each address of `ncm.compliance_mail_to`. Sent after
 * the ingest commits (a rolled-back version mails nothing); a failure is logged, the results stay.
 * It goes out in English: it has no reader's language to follow.
 */
import en from '../locales/compliance-en.js'
import type { NcmContext } from './context.js'
import type { EvidenceLine, Requirement } from './evaluate.js'

export interface Violation {
  name: string
  requirement: Requirement
  pattern: string
  evidence: EvidenceLine[]
}

export interface ViolationMail {
  to: string[]
  device: string
  versionId: string
  fetchedAt: Date
  violations: Violation[]
}

/** One line, every control or invisible format character written as `\u{…}`, bounded: nothing in it forges a mail line. */
export function mailValue(v: string, max = 300): string {
  const shown = v.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, (ch) => `\\u{${ch.codePointAt(0)!.toString(16).toUpperCase()}}`)
  return [...shown].length > max ? `${[...shown].slice(0, max).join('')}…` : shown
}

const fill = (text: string, vars: Record<string, string>) => text.replace(/\{\{(\w+)\}\}/g, (_m, k: string) => vars[k] ?? '')

export function violationMailText(m: Omit<ViolationMail, 'to'>): { subject: string; text: string } {
  const s = en.compliance_mail
  const rules = m.violations
    .map((v) => {
      const head = `- ${mailValue(v.name, 64)}: ${s[v.requirement]} "${mailValue(v.pattern, 500)}"`
      const lines = v.evidence.length ? v.evidence.map((e) => `    ${e.line}: ${mailValue(e.text, 300)}`) : [`    ${s.nothing_found}`]
      return [head, ...lines].join('\n')
    })
    .join('\n')
  const vars = { device: mailValue(m.device, 128), count: String(m.violations.length), version: m.versionId, fetched_at: m.fetchedAt.toISOString(), rules }
  return { subject: fill(s.subject, vars), text: fill(s.body, vars) }
}

export async function sendViolationMail(c: Pick<NcmContext, 'mail' | 'logger'>, m: ViolationMail): Promise<void> {
  const { subject, text } = violationMailText(m)
  for (const to of m.to) {
    try {
      await c.mail.send({ to, subject, text })
    } catch (e) {
      c.logger.warn({ err: e, device: m.device, version: m.versionId }, 'ncm: a compliance violation mail could not be sent; the report shows the violation')
    }
  }
}
