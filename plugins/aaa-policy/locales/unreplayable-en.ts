/** Why a change-impact request is not replayed (services/impact.ts UNREPLAYABLE), spread into locales/en.ts under `impact_unreplayable`. */
export default {
  wrong_password: 'A login that failed every time in the window, on its password as the log says: the replay takes passwords to be right, so it cannot say what a right one would get.',
  password_unknown:
    'A login the daemon never let through in the window, refused by the deployed policy, that the edited policy would permit: the daemon refused it without checking its password, so whether the password is right is not in the log and the replay cannot say whether it would get in.',
  mfa: 'A login that failed on its second factor (MFA): the replay does not see codes or pushes.',
  directory_user: 'A directory user: the daemons add, at each login, the user groups mapped to the directory groups the directory lists the user in, which the replay cannot know.',
  method: 'A login method the policy test does not answer (MS-CHAPv1, EAP, or a method tac_plus-ng logs that is not PAP, CHAP, MS-CHAPv2, ASCII or enable).',
  command_cr: 'A command line with `<cr>` before its end: the daemon decides it differently with and without the NAS’s own end marker, which the log does not show.',
  no_address: 'The log holds no device address for the request.',
} as const
