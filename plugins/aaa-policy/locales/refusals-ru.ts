/** Russian for refusals-en.ts (every key), spread into locales/ru.ts under `verdict`. */
export default {
  wider_client_no_secret: 'у устройства {{device}} нет секрета RADIUS, поэтому FreeRADIUS отвечает {{address}} как более широкий клиент {{client}}',
  wider_client_disabled: 'устройство {{device}} отключено, поэтому FreeRADIUS отвечает {{address}} как более широкий клиент {{client}}',
  its_address: 'его адресу',
  expired_radius: 'срок действия пользователя {{username}} истёк {{at}}: с этого момента FreeRADIUS (Expiration) отклоняет вход',
  expired_tacacs: 'срок действия пользователя {{username}} истёк {{at}}: с этого момента tac_plus-ng (valid until) отказывает во входе',
  expired_session: 'срок действия пользователя {{username}} истёк {{at}}, но tac_plus-ng проверяет срок только при входе, а не при авторизациях внутри сеанса',
  no_directory_radius: 'пользователь {{username}} из каталога, а каталог не задан (настройка directory.url): FreeRADIUS отклоняет таких пользователей до проверки правил (directory_not_configured)',
  no_directory_tacacs: 'пользователь {{username}} из каталога, а каталог не задан (настройка directory.url): тогда tac_plus-ng не получает пользователей каталога и не знает эту учётную запись',
  login_refused: 'вход {{method}}: {{why}}',
  enable_refused: 'вход в enable: правило {{rule}} даёт профиль TACACS+ {{profile}}, {{why}}',
  service_not_answered: 'правило {{rule}} даёт профиль TACACS+ {{profile}}, который отвечает только на сервисы {{services}}: демон отказывает в сервисе {{service}}',
  mandatory_attribute: '{{permitted}}, но NAS прислал обязательный атрибут {{pair}}, которому профиль не задаёт это значение: tac_plus-ng отказывает в авторизации (обязательная пара, которую демон не может выполнить, отклоняется)',
  login: {
    no_password: 'у пользователя {{username}} нет сетевого пароля (он не задавался с тех пор, как включён сетевой вход: network_verifiers_set — false), поэтому у демона нет проверочных данных и он отклоняет вход',
    directory_method: '{{method}} не поддерживается для пользователя каталога {{username}}: каталог проверяет пароль через LDAP bind, которому нужен сам пароль (PAP, ASCII); MS-CHAPv2 с Active Directory (ntlm_auth) — задача доменного компаньона, она не реализована',
    lockout: 'включена блокировка учётных записей: tac_plus-ng проверял бы CHAP вне счётчика неудачных попыток, поэтому пользователю {{username}} не выдаётся пароль CHAP и MS-CHAP и {{method}} отклоняется (identity.lockout_threshold > 0; PAP, ASCII и enable учитываются)',
    no_cleartext: '{{method}} не поддерживается для пользователя {{username}}: tac_plus-ng нужен пароль в открытом виде, а платформа хранит его только при chap_enabled, для пароля, заданного при включённом параметре (и без «${»), поэтому вход отклоняется (в журнале: «{{log}}»)',
    mschap_plane: 'MS-CHAPv2 не поддерживается для пользователя {{username}}: в пароле есть символ вне базовой многоязычной плоскости, для которого tac_plus-ng неверно вычисляет хеш MS-CHAP, поэтому такой пароль не выдаётся и вход отклоняется (CHAP работает)',
    radius_chap: 'CHAP не поддерживается для пользователя {{username}}: нужен пароль в открытом виде, а платформа хранит его только при chap_enabled, для пароля, заданного при включённом параметре (и без управляющих символов); FreeRADIUS отклоняет вход',
  },
  enable: {
    none: 'у которого enable_mode — none: у tac_plus-ng нет для него пароля enable, и enable отклоняется',
    level: 'который разрешает enable только до уровня {{level}}: enable запрашивает уровень 15, и tac_plus-ng отказывает',
    no_password: 'в котором enable принимает пароль входа, а у пользователя {{username}} нет сетевого пароля (network_verifiers_set — false): tac_plus-ng отклоняет enable',
  },
}
