import type { LocalizedText } from '../../sdk/index.js'

export const MFA_MANAGE = 'mfa.manage'

export const mfaPermissions: Record<string, LocalizedText> = {
  [MFA_MANAGE]: {
    en: "See users' second-factor status, reset it, and send MFA setup links.",
    ru: 'Просмотр и сброс второго фактора пользователей, отправка ссылок для настройки MFA.',
  },
}
