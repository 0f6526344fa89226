/** The pages' and mails' own words, English and Russian. A portal's texts (title, welcome, terms) come from its branding. */
export type Lang = 'en' | 'ru'
export const LANGS: readonly Lang[] = ['en', 'ru']
export const asLang = (s: string | null | undefined): Lang | null => (s === 'en' || s === 'ru' ? s : null)

interface MailSponsor {
  name: string
  email: string
  fields: string[]
  link: string | null
  path: string
  token: string
  minutes: number
}

const en = {
  langName: 'English',
  switchTo: 'Русский',
  skip: 'Skip to the form',
  welcome: 'Sign in to get access to the network.',
  chooseMethod: 'Choose how to get access',
  hotspotTitle: 'Free access',
  acceptTerms: 'I accept the terms of use',
  terms: 'Terms of use',
  connect: 'Connect',
  registerTitle: 'Register with your e-mail',
  name: 'Your name',
  email: 'E-mail address',
  sendCode: 'Send me a code',
  codeTitle: 'Enter the code',
  codeSent: (email: string) => `We sent a 6-digit code to ${email}. It is valid for 10 minutes.`,
  code: 'Code',
  verify: 'Confirm',
  resend: 'Send a new code',
  sponsorTitle: 'Ask an employee to let you in',
  sponsorEmail: 'Your host\'s e-mail address',
  askSponsor: 'Ask for access',
  waitingTitle: 'Waiting for your host',
  waiting: (email: string) => `We asked ${email} to approve your access. This page refreshes by itself.`,
  refreshNow: 'Check now',
  employeeTitle: 'Employees: register your own device',
  accountTitle: 'Sign in with a guest account',
  username: 'Username',
  password: 'Password',
  signIn: 'Sign in',
  mfaTitle: 'Two-factor authentication',
  mfaCode: 'Code from your authenticator app',
  activeTitle: 'You are connected',
  active: 'Your device is being connected to the network. This takes a few seconds; then open any page.',
  until: (when: string) => `Access until ${when}.`,
  certificateTitle: 'Your device certificate',
  certificate: 'Download the certificate once, install it, then connect to the secure network (802.1X). The link works only once.',
  download: 'Download the certificate',
  passphrase: 'Its passphrase (write it down, it is shown only now):',
  deniedTitle: 'Access was not granted',
  denied: 'Your host did not approve the request.',
  expiredTitle: 'The request has expired',
  expired: 'Your host did not answer in time. Open any web page again to start over.',
  endedTitle: 'Session ended',
  errorTitle: 'Something went wrong',
  problem: 'Please check the form:',
  required: 'required',
  fieldInvalid: 'This field is missing or not valid.',
  csrf: 'This form has expired. Open the page again and retry.',
  sponsorPageTitle: 'A guest asks for network access',
  sponsorAsks: 'This guest asks you to let them on the network:',
  device: 'Device',
  portal: 'Portal',
  approve: 'Approve',
  deny: 'Deny',
  approvedTitle: 'Approved',
  approved: 'The guest is being connected. Thank you.',
  deniedByYouTitle: 'Denied',
  deniedByYou: 'The guest will not get access.',
  mailCodeSubject: (portal: string) => `Your code for ${portal}`,
  mailCodeBody: (code: string, minutes: number) => `Your registration code is:\n\n${code}\n\nEnter it on the sign-in page within ${minutes} minutes. If you did not ask for it, ignore this message.\n`,
  mailSponsorSubject: (portal: string) => `A guest asks for network access (${portal})`,
  mailSponsorBody: (m: MailSponsor) =>
    `A guest named you as their host and asks for network access.\n\nName: ${m.name}\nE-mail: ${m.email}\n${m.fields.join('\n')}${m.fields.length ? '\n' : ''}\n` +
    (m.link ? `Approve or deny here (valid for ${m.minutes} minutes, once):\n\n${m.link}\n` : `Open ${m.path} on the platform with this token (valid for ${m.minutes} minutes, once):\n\n${m.token}\n`) +
    `\nIf you do not know this person, deny the request.\n`,
}

export type PageText = typeof en

const ru: PageText = {
  langName: 'Русский',
  switchTo: 'English',
  skip: 'Перейти к форме',
  welcome: 'Войдите, чтобы получить доступ к сети.',
  chooseMethod: 'Выберите способ получить доступ',
  hotspotTitle: 'Свободный доступ',
  acceptTerms: 'Я принимаю условия использования',
  terms: 'Условия использования',
  connect: 'Подключиться',
  registerTitle: 'Регистрация по электронной почте',
  name: 'Ваше имя',
  email: 'Адрес электронной почты',
  sendCode: 'Прислать код',
  codeTitle: 'Введите код',
  codeSent: (email) => `Мы отправили 6-значный код на ${email}. Он действует 10 минут.`,
  code: 'Код',
  verify: 'Подтвердить',
  resend: 'Прислать новый код',
  sponsorTitle: 'Попросить сотрудника впустить вас',
  sponsorEmail: 'Адрес электронной почты приглашающего сотрудника',
  askSponsor: 'Запросить доступ',
  waitingTitle: 'Ожидаем решения сотрудника',
  waiting: (email) => `Мы попросили ${email} одобрить ваш доступ. Страница обновляется сама.`,
  refreshNow: 'Проверить сейчас',
  employeeTitle: 'Сотрудникам: регистрация личного устройства',
  accountTitle: 'Вход по гостевой учётной записи',
  username: 'Имя пользователя',
  password: 'Пароль',
  signIn: 'Войти',
  mfaTitle: 'Двухфакторная аутентификация',
  mfaCode: 'Код из приложения-аутентификатора',
  activeTitle: 'Вы подключены',
  active: 'Устройство подключается к сети. Это займёт несколько секунд; затем откройте любую страницу.',
  until: (when) => `Доступ до ${when}.`,
  certificateTitle: 'Сертификат устройства',
  certificate: 'Скачайте сертификат (ссылка работает один раз), установите его и подключитесь к защищённой сети (802.1X).',
  download: 'Скачать сертификат',
  passphrase: 'Пароль к нему (запишите, он показывается только сейчас):',
  deniedTitle: 'Доступ не предоставлен',
  denied: 'Сотрудник не одобрил запрос.',
  expiredTitle: 'Срок запроса истёк',
  expired: 'Сотрудник не ответил вовремя. Откройте любую веб-страницу, чтобы начать заново.',
  endedTitle: 'Сеанс завершён',
  errorTitle: 'Что-то пошло не так',
  problem: 'Проверьте форму:',
  required: 'обязательно',
  fieldInvalid: 'Поле не заполнено или заполнено неверно.',
  csrf: 'Срок действия формы истёк. Откройте страницу заново и повторите.',
  sponsorPageTitle: 'Гость просит доступ к сети',
  sponsorAsks: 'Этот гость просит вас впустить его в сеть:',
  device: 'Устройство',
  portal: 'Портал',
  approve: 'Одобрить',
  deny: 'Отклонить',
  approvedTitle: 'Одобрено',
  approved: 'Гость подключается к сети. Спасибо.',
  deniedByYouTitle: 'Отклонено',
  deniedByYou: 'Гость не получит доступ.',
  mailCodeSubject: (portal) => `Ваш код для ${portal}`,
  mailCodeBody: (code, minutes) => `Ваш код регистрации:\n\n${code}\n\nВведите его на странице входа в течение ${minutes} минут. Если вы его не запрашивали, не обращайте внимания на это письмо.\n`,
  mailSponsorSubject: (portal) => `Гость просит доступ к сети (${portal})`,
  mailSponsorBody: (m) =>
    `Гость указал вас как приглашающего и просит доступ к сети.\n\nИмя: ${m.name}\nЭлектронная почта: ${m.email}\n${m.fields.join('\n')}${m.fields.length ? '\n' : ''}\n` +
    (m.link ? `Одобрите или отклоните запрос здесь (ссылка действует ${m.minutes} минут, один раз):\n\n${m.link}\n` : `Откройте ${m.path} на платформе с этим токеном (действует ${m.minutes} минут, один раз):\n\n${m.token}\n`) +
    `\nЕсли вы не знаете этого человека, отклоните запрос.\n`,
}

export const pageText = (lang: Lang): PageText => (lang === 'ru' ? ru : en)
