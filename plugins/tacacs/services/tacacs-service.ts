/** The implementation of `TacacsService` (api.ts), the plugin's contract with other plugins. */
import type { Knex } from 'knex'
import { defineReferenceTarget, type DatabaseService, type OwnedReferenceTarget } from '../../../sdk/index.js'
import type { PolicySource, TacacsService } from '../api.js'
import { renderProfileText } from '../renderers/profile.js'
import { renderRuleText } from '../renderers/rule.js'
import { authorizationReply, profilePairs } from './author-reply.js'
import { commandSetsByIds, getCommandSet, listCommandSets } from './command-set-store.js'
import { decideCommand } from './command-match.js'
import { getEnableVerifier, getProfile, listProfiles } from './profile-store.js'

/** What the plugin itself reaches beyond the contract: the registered policy source (the configuration renderer), and its side of the references. */
export interface TacacsServiceInternal extends TacacsService {
  policySource(): PolicySource | null
  /** The profile routes call beforeDelete, renamed and report. */
  references: { tacacs_profile: OwnedReferenceTarget }
}

export function createTacacsService(database: DatabaseService): TacacsServiceInternal {
  const knex = database.knex
  let source: PolicySource | null = null
  return {
    // A profile delete is always allowed (the contract): referrers may only clear.
    references: { tacacs_profile: defineReferenceTarget({ kind: 'tacacs_profile', table: 'tacacs_profiles', nameColumn: 'name', allow: ['clear'] }) },
    getProfile: (id, db: Knex | Knex.Transaction = knex) => getProfile(db, id),
    listProfiles: (db = knex) => listProfiles(db),
    getCommandSet: (id, db = knex) => getCommandSet(db, id),
    listCommandSets: (db = knex) => listCommandSets(db),
    async authorizeCommand(profile, commandLine, db = knex, privLvl, say) {
      return decideCommand(profile, await commandSetsByIds(db, profile.command_set_ids), commandLine, privLvl, say)
    },
    decideCommand: (profile, sets, commandLine, privLvl, say) => decideCommand(profile, sets, commandLine, privLvl, say),
    authorizationReply(profile, service, nasPairs) {
      const lists = profilePairs(profile, service)
      return lists && authorizationReply(lists, service, nasPairs)
    },
    renderRule: (rule, profileName) => renderRuleText(rule, profileName),
    async renderProfile(profile, db = knex) {
      const sets = await commandSetsByIds(db, profile.command_set_ids)
      return renderProfileText(profile, sets, profile.enable_mode === 'secret' ? await getEnableVerifier(db, profile.id) : null)
    },
    async profileSecrets(profile, db = knex) {
      const verifier = profile.enable_mode === 'secret' ? await getEnableVerifier(db, profile.id) : null
      return verifier ? [verifier] : []
    },
    registerPolicySource(s) {
      // One policy decides; a second source would be a wiring mistake, not a choice.
      if (source && source !== s) throw new Error('tacacs: a policy source is already registered')
      source = s
    },
    policySource: () => source,
  }
}
