import fp from 'fastify-plugin'
import { openStore } from '../src/core/ledger/open-store.js'
import { commaList } from '../src/core/comma-list.js'
import { WrongSecretsKey } from '../src/core/ledger/secrets.js'
import type { Ledger } from '../src/core/ledger/ledger.js'

declare module 'fastify' {
  interface FastifyInstance {
    ledger: Ledger
  }
}

/**
 * Opens the ledger named by DATABASE_URL (migrations run on open), brings its signing secrets under the
 * current SECRETS_KEY, and closes it with the server.
 */
export default fp(async (fastify) => {
  const { config } = fastify
  const ledger = await openStore(config.DATABASE_URL, {
    poolSize: config.DATABASE_POOL_SIZE,
    secretsKey: config.SECRETS_KEY,
    previousSecretsKeys: commaList(config.SECRETS_KEY_PREVIOUS),
    platformFeeBps: config.PLATFORM_FEE_BPS
  })
  try {
    // Signing secrets stored in plaintext, or under a previous key, are encrypted with the current one.
    const resealed = await ledger.catalog.resealSecrets()
    if (resealed > 0) fastify.log.info({ bees: resealed }, 'signing secrets re-encrypted with the current SECRETS_KEY')
  } catch (error) {
    await ledger.close()
    if (error instanceof WrongSecretsKey) throw new Error(`Wrong SECRETS_KEY: ${error.message}`)
    throw error
  }
  fastify.decorate('ledger', ledger)
  fastify.addHook('onClose', async () => { await ledger.close() })
}, { name: 'ledger', dependencies: ['config'] })
