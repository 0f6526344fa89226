export default {
  errors: {
    disabled: 'The update check is off (setting update_feed.enabled). Turn it on to check now.',
    not_configured: 'No update feed address is set (setting update_feed.url).',
    admin_required: 'Only an administrator may do this.',
    url_invalid: 'The feed address must be https (plain http only to 127.0.0.1, ::1 or localhost) and carry no user name or password.',
  },
}
