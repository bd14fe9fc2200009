import fp from 'fastify-plugin'

/** Most holds one sweep voids in its transaction; the rest wait for the next sweep. */
const SWEEP_BATCH = 500

/**
 * Settles subscription periods that ended (see renewDue), and voids the holds nobody settled in time: their execution's process died, or the void after a
 * failure could not be written. Every instance sweeps; the store makes concurrent sweeps safe, each
 * hold voided once.
 */
export default fp(async (fastify) => {
  const { ledger, config } = fastify
  // Its failures while the database is away count toward the ledger's outage, logged there once: the next sweep catches up.
  const log = fastify.storeHealth.logger(fastify.log)
  let running: Promise<void> | null = null
  const sweep = async () => {
    try {
      let voided: number
      do {
        voided = await ledger.holds.voidExpired(SWEEP_BATCH)
        if (voided > 0) {
          log.warn({ voided }, 'expired holds voided')
          fastify.metrics?.swept(voided)
        }
      } while (voided === SWEEP_BATCH)
    } catch (error) {
      log.warn({ err: error }, 'hold sweep failed')
    }
    try {
      // Subscriptions whose period ended: renewed if their wallet pays, else lapsed; canceled ones end.
      let settled
      do {
        settled = await ledger.subscriptions.renewDue(SWEEP_BATCH)
        if (settled.renewed + settled.lapsed + settled.ended > 0) log.info(settled, 'subscription periods settled')
      } while (settled.renewed + settled.lapsed + settled.ended === SWEEP_BATCH)
    } catch (error) {
      log.warn({ err: error }, 'subscription renewal failed')
    }
  }
  const timer = setInterval(() => {
    // One sweep at a time per instance: a slow database does not stack them up.
    running ??= sweep().finally(() => { running = null })
  }, config.HOLD_SWEEP_INTERVAL_MS)
  timer.unref()
  fastify.addHook('onClose', async () => {
    clearInterval(timer)
    await running
  })
}, { name: 'hold-sweeper', dependencies: ['config', 'ledger', 'metrics'] })
