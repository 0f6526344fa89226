/**
 * The keys the update feed's manifests are signed with, shipped with the code: key id → Ed25519
 * public key (base64 of the raw 32 bytes). A manifest names its key id; an id not listed here (nor
 * in the server option `update-feed.trusted_keys_file`) is refused. Rotation: the new key's id is
 * added here one release before the feed is signed with it, and the old one removed a release
 * after (docs/update-feed.md). Only public keys belong here; the private key is kept offline.
 */
export const TRUSTED_KEYS: Readonly<Record<string, string>> = Object.freeze({
  // The project's release key, made with `portcullis update-feed keygen` (2026-11).
  'ed25519-2c0efce341613935': 'TMVVN8BdGzVIptgnTMG7oAUQi2BGeiBV0wnqL+rwsFc=',
})
