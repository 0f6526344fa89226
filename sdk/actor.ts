/** Who makes a request. */
export interface Actor {
  id: string
  username: string
  isAdmin: boolean
  permissions: ReadonlySet<string>
  /** The session token's id, for revocation. */
  tokenId?: string
}
