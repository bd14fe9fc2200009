import type { Kysely, Migration } from 'kysely'

/**
 * The OAuth authorization server's state (oidc-provider's models: clients registered by DCR, grants,
 * interactions, sessions, codes, refresh tokens), one row per model and id, its payload as JSON.
 * Indexed the ways the provider looks them up: by grant (revocation), by uid (sessions). Access tokens
 * are not stored here: they are verification tokens, rows of wallet_tokens.
 */
export const oauthMigration: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.createTable('oauth_models')
      .addColumn('model', 'text', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('grant_id', 'text')
      .addColumn('uid', 'text')
      .addColumn('expires_at', 'text')
      .addColumn('consumed_at', 'text')
      .addPrimaryKeyConstraint('oauth_models_pk', ['model', 'id'])
      .execute()
    await db.schema.createIndex('oauth_models_by_grant').on('oauth_models').columns(['grant_id']).execute()
    await db.schema.createIndex('oauth_models_by_uid').on('oauth_models').columns(['uid']).execute()
    await db.schema.createIndex('oauth_models_by_expiry').on('oauth_models').columns(['expires_at']).execute()
  }
}
