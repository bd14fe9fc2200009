import fp from 'fastify-plugin'
import { openStore } from '../src/ledger/open-store.js'
import type { LedgerStore } from '../src/ledger/store.js'

declare module 'fastify' {
  interface FastifyInstance {
    ledger: LedgerStore
  }
}

/** Opens the ledger named by DATABASE_URL (migrations run on open) and closes it with the server. */
export default fp(async (fastify) => {
  const ledger = await openStore(fastify.config.DATABASE_URL, { poolSize: fastify.config.DATABASE_POOL_SIZE })
  fastify.decorate('ledger', ledger)
  fastify.addHook('onClose', async () => { await ledger.close() })
}, { name: 'ledger', dependencies: ['config'] })
