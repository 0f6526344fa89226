/**
 * The push service's own version: it tracks the HTTP contract with the mobile app and changes only
 * when that contract does (spec, "Versioning" item 5), not with the platform's releases. Reported on
 * GET /healthz, in the header X-Push-Service-Version of every answer and in `service_version` of the
 * enrollment answer and the challenge list.
 */
export const PUSH_SERVICE_VERSION = '1.0.0'
