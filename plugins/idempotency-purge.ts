import fp from 'fastify-plugin'

const PURGE_EVERY_MS = 10 * 60 * 1000

/**
 * Deletes the stored answers of Idempotency-Keys whose time to live ended. The claim and its release are the execute
 * routes' hooks (src/http/execute/hooks.ts); this is the ledger's housekeeping behind them.
 */
export default fp(async (fastify) => {
  const { ledger } = fastify
  const log = fastify.storeHealth.logger(fastify.log)
  const purge = setInterval(() => {
    ledger.idempotency.purgeExpired().catch((error: unknown) => log.warn({ err: error }, 'idempotency purge failed'))
  }, PURGE_EVERY_MS)
  purge.unref()
  fastify.addHook('onClose', async () => { clearInterval(purge) })
}, { name: 'idempotency-purge', dependencies: ['ledger'] })
