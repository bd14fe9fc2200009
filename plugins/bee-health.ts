import fp from 'fastify-plugin'
import { HealthBoard } from '../src/core/health/board.js'
import { HealthRecorder } from '../src/core/health/recorder.js'
import { HealthSync } from '../src/core/health/sync.js'

declare module 'fastify' {
  interface FastifyInstance {
    beeHealth: {
      /** Counts each Bee run in memory (the executor tells it). */
      recorder: HealthRecorder
      /** Every Bee's figures as last read from the ledger. */
      board: HealthBoard
      /** Writes the counts to the ledger and reads back the figures that changed, at once. */
      sync (): Promise<void>
    }
  }
}

/**
 * Per-Bee health shared by every instance on the database: runs are counted in memory, written as additive
 * counters every HEALTH_SYNC_MS (and on close), and the figures that changed read back in the same sync, so
 * discovery serves them from memory without a query.
 */
export default fp(async (fastify) => {
  const { config, ledger } = fastify
  // Its failures while the database is away count toward the ledger's outage, logged there once.
  const log = fastify.storeHealth.logger(fastify.log)
  const recorder = new HealthRecorder()
  const board = new HealthBoard(config.HEALTH_WINDOW_MINUTES)
  const sync = new HealthSync({ recorder, board, store: ledger.health, log })
  fastify.decorate('beeHealth', { recorder, board, sync: () => sync.sync() })

  fastify.addHook('onReady', async () => { await sync.sync() })
  const timer = setInterval(() => {
    sync.sync().catch((error: unknown) => log.warn({ err: error }, 'Bee health sync failed'))
  }, config.HEALTH_SYNC_MS)
  timer.unref()
  fastify.addHook('onClose', async () => {
    clearInterval(timer)
    // The last counts, before the ledger closes.
    await sync.sync().catch((error: unknown) => log.warn({ err: error }, 'Bee health not written at close'))
  })
}, { name: 'bee-health', dependencies: ['config', 'ledger'] })
