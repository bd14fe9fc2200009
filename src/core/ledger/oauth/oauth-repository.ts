/** One stored model of the authorization server: its JSON payload and what it is looked up by. */
export interface OAuthRecord {
  payload: Record<string, unknown>
  grantId: string | null
  uid: string | null
  /** ISO time after which it is gone; null: kept until destroyed. */
  expiresAt: string | null
  consumedAt: string | null
}

/**
 * The authorization server's models (oidc-provider's adapter contract, one aggregate): upserted by
 * model and id, found by id or uid, consumed once, destroyed alone or with their grant. An expired
 * row reads as absent and is removed as it is met.
 */
export interface OAuthRepository {
  upsert (model: string, id: string, record: Omit<OAuthRecord, 'consumedAt'>): Promise<void>
  find (model: string, id: string): Promise<OAuthRecord | null>
  findByUid (model: string, uid: string): Promise<OAuthRecord | null>
  /** Marks it consumed; false when it already was (a code consumed twice is how the provider spots a replay). */
  consume (model: string, id: string): Promise<boolean>
  destroy (model: string, id: string): Promise<void>
  revokeByGrantId (model: string, grantId: string): Promise<void>
}
