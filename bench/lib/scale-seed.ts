/**
 * Issue 13's data, written DIRECTLY into the database with bulk SQL (one
 * transaction): creating 20,000 users through the API takes over an hour
 * (about 0.2 s of CPU per password for argon2id and the network verifiers),
 * which the issue allows the benchmark to skip. Every user gets the SAME
 * sealed network verifiers (one SHA-512-crypt hash, 5,000 rounds, one salt,
 * and the NT hash, derived once by kernel/identity/verifiers.ts and sealed
 * with the app's master key), so the daemons check the same hash for
 * everyone and the rendered tree is compared with a minimal tree that checks
 * that very hash.
 *
 * Shape (deterministic through hashint8):
 * - `users` users u000001…, enabled, network login on, all with a password;
 *   each in 1–2 of `groups` user groups, and all in `bench-all`;
 * - 20 device groups dg-01…dg-20 and `bench-nas`; `devices` devices: the NAS
 *   (127.0.0.1/32 in bench-nas, the load generator's source) and the rest in
 *   10/8 (/32s) spread over dg-*, each with a sealed RADIUS secret and
 *   TACACS+ key;
 * - 20 RADIUS profiles, 20 TACACS+ profiles (no command sets);
 * - `rules` rules before the default rule: the last of them (position
 *   rules-1) lets `bench-all` in at `bench-nas` with profile 1 of each kind;
 *   the others WHO a user (50 %) or a group, WHERE the NAS or bench-nas
 *   (10 %) else a 10/8 device or a dg-* group, each with a profile of both
 *   kinds. So a request from the NAS for a random user walks nearly the
 *   whole list and usually ends at the bench-all rule, and every answer is an
 *   Access-Accept (a rule without a profile denies, and FreeRADIUS holds a
 *   reject for `reject_delay` = 1 s: a slot of the load generator would wait
 *   for it, and the round would measure the delay, not the daemon).
 */
import type pg from 'pg'

export interface ScaleSize {
  rules: number
  users: number
  groups: number
  devices: number
}

export interface ScaleSeed {
  ms: number
  /** Usernames spread over the whole range, for the load generator. */
  sample: string[]
  counts: Record<string, number>
}

const h = (x: string, salt: number) => `(hashint8((${x})::bigint * 64 + ${salt})::bigint & 2147483647)`
const DEVICE_GROUPS = 20
const PROFILES = 20

export const username = (i: number) => `u${String(i).padStart(6, '0')}`

export async function seedScale(c: pg.Client, size: ScaleSize, sealed: { verifiers: string; radiusSecret: string; tacacsKey: string }, sampleSize = 1000): Promise<ScaleSeed> {
  const { rules, users, groups, devices } = size
  if (rules < 1 || users < 1 || groups < 1 || devices < 1) throw new Error('seedScale: every count must be at least 1')
  const t0 = performance.now()
  const lit = (s: string) => `'${s.replace(/'/g, "''")}'`
  await c.query('BEGIN')
  await c.query(`
    CREATE TEMP TABLE bu ON COMMIT DROP AS SELECT i, gen_random_uuid() AS id FROM generate_series(1, ${users}) i;
    INSERT INTO users (id, username, display_name, enabled, network_login, source, network_verifiers, chap_enabled)
      SELECT id, 'u' || lpad(i::text, 6, '0'), 'Bench user ' || i, true, true, 'local', ${lit(sealed.verifiers)}, false FROM bu;
    CREATE UNIQUE INDEX ON bu (i); ANALYZE bu;
    CREATE TEMP TABLE bg ON COMMIT DROP AS SELECT i, gen_random_uuid() AS id FROM generate_series(1, ${groups}) i;
    INSERT INTO user_groups (id, name, description) SELECT id, 'ug-' || lpad(i::text, 5, '0'), NULL FROM bg;
    INSERT INTO user_groups (name, description) VALUES ('bench-all', 'every bench user');
    CREATE UNIQUE INDEX ON bg (i); ANALYZE bg;
    INSERT INTO user_group_members (group_id, user_id)
      SELECT DISTINCT bg.id, bu.id FROM bu CROSS JOIN generate_series(0, 1) j
        JOIN bg ON bg.i = 1 + (${h('bu.i', 1)} + j * 7919) % ${groups}
       WHERE j < 1 + ${h('bu.i', 2)} % 2;
    INSERT INTO user_group_members (group_id, user_id) SELECT (SELECT id FROM user_groups WHERE name = 'bench-all'), id FROM bu;
    CREATE TEMP TABLE bdg ON COMMIT DROP AS SELECT k, gen_random_uuid() AS id FROM generate_series(0, ${DEVICE_GROUPS}) k;
    INSERT INTO inventory_device_groups (id, name, description, parent_id)
      SELECT id, CASE WHEN k = 0 THEN 'bench-nas' ELSE 'dg-' || lpad(k::text, 2, '0') END, NULL, NULL FROM bdg;
    CREATE UNIQUE INDEX ON bdg (k); ANALYZE bdg;
    CREATE TEMP TABLE bd ON COMMIT DROP AS SELECT i, gen_random_uuid() AS id FROM generate_series(0, ${devices - 1}) i;
    INSERT INTO inventory_devices (id, name, address, address_cidr, vendor, model, device_group_id, tacacs_key_sealed, radius_secret_sealed, enabled)
      SELECT bd.id, CASE WHEN bd.i = 0 THEN 'bench-nas' ELSE 'sw-' || lpad(bd.i::text, 6, '0') END, a.addr, a.addr::cidr, 'cisco', 'c9300',
             bdg.id, ${lit(sealed.tacacsKey)}, ${lit(sealed.radiusSecret)}, true
        FROM bd
        CROSS JOIN LATERAL (SELECT CASE WHEN bd.i = 0 THEN '127.0.0.1/32'
                                   ELSE '10.' || (bd.i >> 16) || '.' || ((bd.i >> 8) & 255) || '.' || (bd.i & 255) || '/32' END AS addr) a
        JOIN bdg ON bdg.k = CASE WHEN bd.i = 0 THEN 0 ELSE 1 + ${h('bd.i', 3)} % ${DEVICE_GROUPS} END;
    CREATE UNIQUE INDEX ON bd (i); ANALYZE bd;
    CREATE TEMP TABLE brp ON COMMIT DROP AS SELECT i, gen_random_uuid() AS id FROM generate_series(1, ${PROFILES}) i;
    INSERT INTO radius_profiles (id, name, attributes)
      SELECT id, 'rp-' || lpad(i::text, 2, '0'),
             jsonb_build_array(jsonb_build_object('name', 'Service-Type', 'value', CASE WHEN i % 2 = 1 THEN 'Administrative-User' ELSE 'NAS-Prompt-User' END),
                               jsonb_build_object('name', 'Cisco-AVPair', 'value', 'shell:priv-lvl=' || (1 + i % 15)),
                               jsonb_build_object('name', 'Session-Timeout', 'value', (600 + i)::text))
        FROM brp;
    CREATE TEMP TABLE btp ON COMMIT DROP AS SELECT i, gen_random_uuid() AS id FROM generate_series(1, ${PROFILES}) i;
    INSERT INTO tacacs_profiles (id, name, privilege_level, shell_attributes, default_action)
      SELECT id, 'tp-' || lpad(i::text, 2, '0'), 1 + i % 15,
             jsonb_build_array(jsonb_build_object('name', 'idletime', 'value', (10 + i)::text)), 'permit'
        FROM btp;
    UPDATE aaa_policy_rules SET position = ${rules} WHERE is_default;
    INSERT INTO aaa_policy_rules (name, enabled, position, who_user_id, who_group_id, where_device_id, where_device_group_id, tacacs_profile_id, radius_profile_id)
      SELECT 'rule-' || lpad(s.i::text, 5, '0'), true, s.i,
             CASE WHEN ${h('s.i', 11)} % 2 = 0 THEN bu.id END,
             CASE WHEN ${h('s.i', 11)} % 2 = 1 THEN bg.id END,
             CASE WHEN ${h('s.i', 12)} % 2 = 0 THEN (CASE WHEN ${h('s.i', 13)} % 10 = 0 THEN nas.id ELSE bd.id END) END,
             CASE WHEN ${h('s.i', 12)} % 2 = 1 THEN (CASE WHEN ${h('s.i', 13)} % 10 = 0 THEN nasg.id ELSE bdg.id END) END,
             btp.id,
             brp.id
        FROM generate_series(0, ${rules - 2}) s(i)
        JOIN bu ON bu.i = 1 + ${h('s.i', 15)} % ${users}
        JOIN bg ON bg.i = 1 + ${h('s.i', 16)} % ${groups}
        JOIN bd ON bd.i = ${devices > 1 ? `1 + ${h('s.i', 17)} % ${devices - 1}` : '0'}
        JOIN bdg ON bdg.k = 1 + ${h('s.i', 18)} % ${DEVICE_GROUPS}
        JOIN btp ON btp.i = 1 + ${h('s.i', 19)} % ${PROFILES}
        JOIN brp ON brp.i = 1 + ${h('s.i', 20)} % ${PROFILES}
        CROSS JOIN (SELECT id FROM bd WHERE i = 0) nas
        CROSS JOIN (SELECT id FROM bdg WHERE k = 0) nasg;
    INSERT INTO aaa_policy_rules (name, enabled, position, who_group_id, where_device_group_id, tacacs_profile_id, radius_profile_id)
      SELECT 'everyone-at-the-nas', true, ${rules - 1}, (SELECT id FROM user_groups WHERE name = 'bench-all'), (SELECT id FROM bdg WHERE k = 0),
             (SELECT id FROM btp WHERE i = 1), (SELECT id FROM brp WHERE i = 1);
  `)
  await c.query('COMMIT') // the deferred UNIQUE (position) is checked here
  await c.query('VACUUM (ANALYZE)')
  const counts: Record<string, number> = {}
  for (const t of ['users', 'user_groups', 'user_group_members', 'inventory_device_groups', 'inventory_devices', 'radius_profiles', 'tacacs_profiles', 'aaa_policy_rules']) {
    counts[t] = Number((await c.query(`SELECT count(*) AS n FROM ${t}`)).rows[0].n)
  }
  const step = Math.max(1, Math.floor(users / sampleSize))
  const sample: string[] = []
  for (let i = 1; i <= users && sample.length < sampleSize; i += step) sample.push(username(i))
  return { ms: performance.now() - t0, sample, counts }
}
