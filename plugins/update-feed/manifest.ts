/**
 * The update manifest and its signed envelope: their shapes, checked strictly before anything of
 * a manifest is stored or shown. The same schemas document GET /api/v1/update-feed.
 */
import { Compile } from 'typebox/compile'
import semverValid from 'semver/functions/valid.js'
import validRange from 'semver/ranges/valid.js'
import { StringEnum, TEXT_PATTERN, Timestamp, Type, type Static } from '../../sdk/index.js'
import { KEY_ID_PATTERN } from './keys.js'

/** MAJOR.MINOR.PATCH with an optional pre-release; checked with semver too. */
const VERSION_PATTERN = '^(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$'
const Version = (description: string) => Type.String({ maxLength: 64, pattern: VERSION_PATTERN, description })
/** Only http(s) addresses: anything else (javascript:, data:) refuses the manifest. */
const WebUrl = (description: string) => Type.String({ minLength: 8, maxLength: 2000, pattern: '^https?://[^\\s]+$', description })

export const Advisory = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]*$', description: 'The advisory\'s id, e.g. `PCS-2026-0001` or a CVE id.' }),
    severity: StringEnum(['low', 'medium', 'high', 'critical'] as const, { description: 'How severe.' }),
    title: Type.String({ minLength: 1, maxLength: 300, pattern: TEXT_PATTERN, description: 'One line saying what is affected; shown as text, never as markup.' }),
    url: WebUrl('Where the advisory is described (http or https).'),
    affected: Type.String({ minLength: 1, maxLength: 200, description: 'The affected versions as a semver range (`<0.4.2`, `>=0.3.0 <0.3.5`).' }),
  },
  { additionalProperties: false, title: 'UpdateFeedAdvisory' },
)

export const Manifest = Type.Object(
  {
    schema: Type.Literal(1, { description: 'The manifest format, 1.' }),
    edition: StringEnum(['community', 'pro'] as const, { description: 'The edition the manifest is for; another edition\'s manifest is refused.' }),
    latest: Version('The newest release of the edition.'),
    released_at: Timestamp({ description: 'When `latest` was released.' }),
    release_notes_url: WebUrl('The release notes of `latest`.'),
    min_supported: Version('The oldest release still supported. Advice only: nothing is enforced.'),
    advisories: Type.Array(Advisory, { maxItems: 200, description: 'Security advisories, each with the versions it affects.' }),
    issued_at: Timestamp({ description: 'When the manifest was signed. A manifest issued before the stored one is refused as a replay.' }),
  },
  { additionalProperties: false, title: 'UpdateFeedManifest' },
)
export type Manifest = Static<typeof Manifest>
export type Advisory = Static<typeof Advisory>

export const EnvelopeSchema = Type.Object(
  {
    key_id: Type.String({ pattern: KEY_ID_PATTERN }),
    payload: Type.String({ minLength: 4, maxLength: 300_000 }),
    signature: Type.String({ minLength: 88, maxLength: 88 }),
  },
  { additionalProperties: false },
)

const envelopeCheck = Compile(EnvelopeSchema)
const manifestCheck = Compile(Manifest)

export const isEnvelope = (x: unknown): x is Static<typeof EnvelopeSchema> => envelopeCheck.Check(x)

/** The schema, then what it cannot say: every version and range must be one semver reads. */
export function isManifest(x: unknown): x is Manifest {
  if (!manifestCheck.Check(x)) return false
  const m = x as Manifest
  if (!semverValid(m.latest) || !semverValid(m.min_supported)) return false
  return m.advisories.every((a) => validRange(a.affected) !== null) && new Set(m.advisories.map((a) => a.id)).size === m.advisories.length
}
