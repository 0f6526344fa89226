/**
 * The audit trail says every action in words (ui/src/i18n/audit-en.ts, audit-ru.ts): each action code
 * and resource type the server records, read from the source as written (`action: 'device.create'`,
 * `${RESOURCE}.update` with its file's RESOURCE, a decision's two codes), has its resource and its verb
 * in English and in Russian. A new audited action without words fails here.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import { actionWords, auditEn } from '../../../ui/src/i18n/audit-en.js'
import { auditRu } from '../../../ui/src/i18n/audit-ru.js'

const ROOT = path.resolve(import.meta.dirname, '../../..')
const files = (dir: string): string[] =>
  readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name)
    if (e.isDirectory()) return e.name === 'test' || e.name === 'node_modules' ? [] : files(p)
    return e.name.endsWith('.ts') ? [p] : []
  })

/** The codes recorded, as the source writes them. */
function recorded(): { actions: Set<string>; resources: Set<string> } {
  const actions = new Set<string>()
  const resources = new Set<string>()
  for (const f of ['kernel', 'plugins', 'pro', 'sdk'].flatMap(files)) {
    const s = readFileSync(path.join(ROOT, f), 'utf8')
    // `action: 'device.create'`, or a choice of codes (`action: secure ? 'a.update' : 'b.update'`).
    for (const m of s.matchAll(/\baction: ([^,\n}]+)/g)) for (const c of m[1].matchAll(/'([a-z_]+(?:\.[a-z_]+)+)'/g)) actions.add(c[1])
    for (const m of s.matchAll(/resourceType: '([a-z_.]+)'/g)) resources.add(m[1])
    const resource = /const RESOURCE = '([a-z_.]+)'/.exec(s)?.[1]
    if (resource) {
      resources.add(resource)
      for (const m of s.matchAll(/action: `\$\{RESOURCE\}\.([a-z_]+)`/g)) actions.add(`${resource}.${m[1]}`)
    }
    // A decision's codes: est_request.approve / reject, portal_sponsor_request.approve / deny.
    if (/action: `est_request\.\$\{/.test(s)) for (const v of ['approve', 'reject']) actions.add(`est_request.${v}`)
    if (/action: `portal_sponsor_request\.\$\{/.test(s)) for (const v of ['approve', 'deny']) actions.add(`portal_sponsor_request.${v}`)
  }
  return { actions, resources }
}

describe('console: the audit trail says every recorded action in words, in English and Russian', () => {
  const { actions, resources } = recorded()

  it('finds the codes the server records (the scan reads the source)', () => {
    expect(actions.size).to.be.above(100)
    for (const c of ['device.create', 'setting.update', 'security_setting.update', 'deploy.activate', 'aaa_policy_rule.reorder', 'auth.login', 'tacacs.command_set.update', 'est_request.approve']) expect(actions, c).to.include(c)
  })

  it('has words for every action code and every resource type', () => {
    const missing: string[] = []
    for (const [lang, w] of [['en', auditEn], ['ru', auditRu]] as const) {
      for (const c of actions) if (!actionWords(w, c)) missing.push(`${lang} action ${c}`)
      for (const r of resources) if (!w.resources[r]) missing.push(`${lang} resource ${r}`)
    }
    expect(missing).to.deep.equal([])
  })

  it('says a code as its resource and its verb; an unknown code has no words (shown as it is)', () => {
    expect(actionWords(auditEn, 'tacacs.command_set.update')).to.equal('Command set: changed')
    expect(actionWords(auditRu, 'device.create')).to.equal('Устройство: создание')
    expect(actionWords(auditEn, 'device.teleport')).to.equal(null)
    expect(actionWords(auditEn, 'nodot')).to.equal(null)
  })
})
