/**
 * A report document for the renderers' tests: two sections, the first cut at
 * 3,000 rows with the runner's note (enough rows to run over many PDF
 * pages), Cyrillic and hostile text in names, titles and cells.
 */
import type { ReportDocument } from '../render/document.js'

export const HOSTILE = {
  script: '<script>alert(1)</script>',
  formula: '=HYPERLINK("http://evil.example/","click")',
  plus: '+cmd|\' /C calc\'!A0',
  at: '@SUM(A1:A9)',
  minus: '-2+3',
}

export const NOTE = 'Stopped at 3,000 rows of 12,345: narrow the time range.'
export const ROWS = 3000
/** 2026-11-01T10:00:00Z: 13:00 in Moscow (UTC+3, no summer time). */
export const FIRST_TIME = Date.UTC(2026, 10, 1, 10, 0, 0)

const users = ['alice', 'Иван Петров', HOSTILE.script, HOSTILE.formula, HOSTILE.plus, HOSTILE.at, HOSTILE.minus]

/** `rows`: fewer for a test that looks at the first pages only. */
export function reportDocument(locale: 'en' | 'ru' = 'en', rowCount = ROWS): ReportDocument {
  const rows = Array.from({ length: rowCount }, (_, i) => ({
    time: new Date(FIRST_TIME + i * 60_000).toISOString(),
    user: i < users.length ? users[i] : `user-${i}`,
    device: i % 3 === 0 ? 'core-sw1.example.net' : 'маршрутизатор-2',
    // Every 50th command is long enough to wrap past three lines and be cut.
    command: i % 50 === 0 ? `show running-config ${'interface GigabitEthernet1/0/1 description uplink '.repeat(12)}END-OF-LONG` : `show version ${i}`,
    privileged: i % 2 === 0,
    count: i * 7,
  }))
  return {
    title: 'Weekly access report — Еженедельный отчёт',
    subtitle: 'Last 7 days (Europe/Moscow), device group: Core',
    generatedAt: new Date(Date.UTC(2026, 10, 8, 6, 30, 0)),
    timeZone: 'Europe/Moscow',
    locale,
    sections: [
      {
        title: 'Device administration',
        note: NOTE,
        truncated: true,
        totalRows: 12345,
        figures: [
          { label: { en: 'Logins', ru: 'Входы' }, value: 12345 },
          { label: { en: 'Failed logins', ru: 'Неудачные входы' }, value: 42 },
          { label: { en: 'Top user', ru: 'Самый активный' }, value: 'Иван Петров' },
        ],
        charts: [
          { title: { en: 'Failures by device', ru: 'Отказы по устройствам' }, kind: 'bar', points: [
            { label: 'core-sw1', value: 30 }, { label: 'edge-rtr', value: 12 }, { label: HOSTILE.script, value: 5 }, { label: 'коммутатор', value: 8 },
          ] },
          { title: { en: 'Logins per day', ru: 'Входы по дням' }, kind: 'line', points: [
            { label: '11-01', value: 1500 }, { label: '11-02', value: 1720 }, { label: '11-03', value: 1610 }, { label: '11-04', value: 2105 },
            { label: '11-05', value: 1980 }, { label: '11-06', value: 1400 }, { label: '11-07', value: 2030 },
          ] },
        ],
        columns: [
          { key: 'time', title: { en: 'Time', ru: 'Время' }, type: 'timestamp' },
          { key: 'user', title: { en: 'User', ru: 'Пользователь' }, type: 'text' },
          { key: 'device', title: { en: 'Device', ru: 'Устройство' }, type: 'text' },
          { key: 'command', title: { en: 'Command', ru: 'Команда' }, type: 'text' },
          { key: 'privileged', title: { en: 'Privileged', ru: 'Привилегированная' }, type: 'boolean' },
          { key: 'count', title: { en: 'Count', ru: 'Число' }, type: 'integer' },
        ],
        rows,
      },
      {
        title: 'Сертификаты: срок действия [PKI]',
        note: null,
        truncated: false,
        totalRows: 2,
        figures: [{ label: { en: 'Expiring', ru: 'Истекают' }, value: 2 }],
        charts: [],
        columns: [
          { key: 'subject', title: { en: 'Subject', ru: 'Субъект' }, type: 'text' },
          { key: 'not_after', title: { en: 'Expires', ru: 'Истекает' }, type: 'timestamp' },
        ],
        rows: [
          { subject: 'CN=radius.example.net', not_after: '2026-11-20T00:00:00.000Z' },
          { subject: 'CN=Сервер 802.1X', not_after: null },
        ],
      },
    ],
  }
}
