/**
 * Mailing a run through the platform's SMTP (the `mail.*` settings): the PDF and xlsx attached,
 * the HTML rendering as the body when it was chosen. A failure is recorded on the run, never
 * thrown: the files stay downloadable.
 */
import type { ReportDeps } from '../context.js'
import type { RenderedFile, ReportDocument } from '../render/document.js'
import { fileName } from './runs.js'
import { reportText } from './words.js'

export async function mailRun(
  d: Pick<ReportDeps, 'mail' | 'logger'>,
  m: { name: string; recipients: string[]; doc: ReportDocument; files: RenderedFile[]; at: Date },
): Promise<{ ok: boolean; error: string | null }> {
  const lang = m.doc.locale
  const subject = reportText(lang, 'mail_subject', { name: m.name })
  const text = reportText(lang, 'mail_body', { name: m.name, range: m.doc.subtitle })
  const html = m.files.find((f) => f.extension === 'html')?.content.toString('utf8')
  const attachments = m.files.filter((f) => f.extension !== 'html').map((f) => ({ filename: fileName(m.name, m.at, f.extension), content: f.content, contentType: f.contentType }))
  const failed: string[] = []
  for (const to of m.recipients) {
    try {
      await d.mail.send({ to, subject, text, ...(html ? { html } : {}), ...(attachments.length ? { attachments } : {}) })
    } catch (e) {
      d.logger.warn({ err: (e as Error).message, to }, 'reports: a report mail could not be sent; the files stay downloadable')
      failed.push(`${to}: ${String((e as Error).message).slice(0, 200)}`)
    }
  }
  return failed.length ? { ok: false, error: failed.join('; ').slice(0, 1000) } : { ok: true, error: null }
}
