import type { IdentityService, MailService, SettingsService } from '../../../sdk/index.js'
import type { DeviceChallenges } from '../services/device-challenge.js'
import type { PushFactor } from '../services/push/factor.js'
import type { RecoveryCodes } from '../services/recovery-codes.js'
import type { TokenBudget } from '../services/token-budget.js'
import type { TotpStore } from '../services/totp-store.js'

/** What the plugin's routes share. */
export interface MfaRouteDeps {
  identity: IdentityService
  mail: MailService
  settings: SettingsService
  store: TotpStore
  budget: TokenBudget
  /** One-time recovery codes (docs/mfa.md "Recovery codes"). */
  recovery: RecoveryCodes
  /** Device logins' second-factor rounds (the internal surface). */
  challenges: DeviceChallenges
  /** The push factor: devices, challenges, factor choice, the signed channel. */
  push: PushFactor
  /** Whether the admin console is served: the setup mail then links to its setup page. */
  consoleServed: boolean
}
