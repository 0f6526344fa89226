import type { LocalizedText } from '../../sdk/index.js'

export const POLICY_READ = 'aaa-policy.read'
export const POLICY_WRITE = 'aaa-policy.write'

export const policyPermissions: Record<string, LocalizedText> = {
  [POLICY_READ]: {
    en: 'See the AAA policy rules, their TACACS+ preview, and run the policy test.',
    ru: 'Просмотр правил политики AAA и их предпросмотра TACACS+, запуск проверки политики.',
  },
  [POLICY_WRITE]: {
    en: 'Create, change, reorder and delete AAA policy rules.',
    ru: 'Создание, изменение, упорядочивание и удаление правил политики AAA.',
  },
}
