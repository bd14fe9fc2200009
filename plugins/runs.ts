import fp from 'fastify-plugin'
import { DatabaseQueue } from '../src/core/preparations/queue/database-queue.js'
import { RunService } from '../src/core/runs/service.js'
import { RunSignals } from '../src/core/runs/signals.js'
import { RunWorker } from '../src/core/runs/worker.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Runs of async Bees: start one, read, wait for, cancel and list them. */
    runs: RunService
  }
}

/**
 * Runs of async Bees: the worker that runs them and its queue, and the use cases the execute door and the runs routes
 * call. The run rows are the queue, on SQLite and on PostgreSQL alike: a claim is one conditional UPDATE, so any number
 * of instances share them, and a run left by a process that died is claimed again once its lease passes. Started once
 * the server is ready, stopped before the ledger closes.
 */
export default fp(async (fastify) => {
  const { config, ledger, registry } = fastify
  // Their failures while the database is away (a claim, a heartbeat) count toward the ledger's outage, logged there once.
  const log = fastify.storeHealth.logger(fastify.log)
  const signals = new RunSignals()
  const worker = new RunWorker({ ledger, registry, signals, leaseSeconds: config.RUN_LEASE_SECONDS, sweepMs: config.RUN_POLL_MS, log })
  const queue = new DatabaseQueue(worker, { name: 'run', concurrency: config.RUN_CONCURRENCY, pollMs: config.RUN_POLL_MS, log })
  fastify.decorate('runs', new RunService({
    ledger,
    signals,
    enqueue: async () => { await queue.enqueue() },
    holdTimeoutSeconds: config.HOLD_TIMEOUT_SECONDS,
    queueSeconds: config.RUN_QUEUE_SECONDS,
    runMaxSeconds: config.RUN_MAX_SECONDS,
    log
  }))
  fastify.addHook('onReady', async () => { await queue.start() })
  fastify.addHook('onClose', async () => { await queue.stop() })
}, { name: 'runs', dependencies: ['config', 'ledger', 'registry', 'catalog'] })
