/**
 * Signing a directory user in: find the entry by the user-name attribute (bound as
 * directory.bind_dn, or anonymously), then bind as that entry with the password typed. The
 * directory decides the password; nothing about it is kept here. Every failure fails closed and
 * says why (for the audit trail and the log), and never falls back to a local password. docs/directory.md.
 */
import { Client, InvalidCredentialsError } from 'ldapts'
import { directorySettingRefs as D, escapeLdapFilterValue, type SettingsService } from '../../sdk/index.js'

export type DirectoryOutcome =
  | { ok: true; dn: string }
  | { ok: false; reason: 'directory_not_configured' | 'directory_user_not_found' | 'bad_password' | 'directory_unavailable'; detail?: string }

export interface Directory {
  authenticate(username: string, password: string): Promise<DirectoryOutcome>
}

export function createDirectory(settings: SettingsService): Directory {
  return {
    async authenticate(username, password) {
      const url = await settings.get(D.url)
      if (url === null) return { ok: false, reason: 'directory_not_configured' }
      // An empty password is an unauthenticated bind to LDAP (RFC 4513 5.1.2), which "succeeds": never send one.
      if (!password) return { ok: false, reason: 'bad_password' }
      const timeoutMs = (await settings.get(D.timeoutSeconds)) * 1000
      const ca = await settings.get(D.caCertificate)
      const tlsOptions = ca ? { ca } : {}
      const open = async () => {
        // ldapts speaks TLS from the first byte whenever tlsOptions is given: only for ldaps://.
        const c = new Client({ url, timeout: timeoutMs, connectTimeout: timeoutMs, ...(url.startsWith('ldaps:') ? { tlsOptions } : {}) })
        if (await settings.get(D.startTls)) await c.startTLS(tlsOptions)
        return c
      }
      let lookup: Client | null = null
      try {
        lookup = await open()
        const bindDn = await settings.get(D.bindDn)
        if (bindDn !== null) await lookup.bind(bindDn, (await settings.get(D.bindPassword)) ?? '')
        const attribute = await settings.get(D.userAttribute)
        const { searchEntries } = await lookup.search(await settings.get(D.userBaseDn), {
          scope: 'sub',
          filter: `(${attribute}=${escapeLdapFilterValue(username)})`,
          attributes: ['dn'],
          sizeLimit: 2,
        })
        // Exactly one: two entries with the name is a directory to fix, not a user to guess.
        if (searchEntries.length !== 1) return { ok: false, reason: 'directory_user_not_found', detail: `${searchEntries.length} entries` }
        const dn = searchEntries[0].dn
        const asUser = await open()
        try {
          await asUser.bind(dn, password)
        } catch (e) {
          if (e instanceof InvalidCredentialsError) return { ok: false, reason: 'bad_password' }
          throw e
        } finally {
          await asUser.unbind().catch(() => undefined)
        }
        return { ok: true, dn }
      } catch (e) {
        return { ok: false, reason: 'directory_unavailable', detail: (e as Error).message.slice(0, 300) }
      } finally {
        await lookup?.unbind().catch(() => undefined)
      }
    },
  }
}
