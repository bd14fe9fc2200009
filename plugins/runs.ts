import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Logger } from '../src/core/logger.js'
import { DatabaseQueue } from '../src/core/preparations/queue/database-queue.js'
import { CallbackSender } from '../src/core/runs/callback-sender.js'
import { CallbackWorker } from '../src/core/runs/callback-worker.js'
import type { RecordWorker } from '../src/core/runs/pg-boss-run-queue.js'
import { RunEvents } from '../src/core/runs/run-events.js'
import { RunService } from '../src/core/runs/service.js'
import { RunSignals } from '../src/core/runs/signals.js'
import { RunWorker } from '../src/core/runs/worker.js'
import { OpenStreams } from '../src/core/streams/open-streams.js'
import { pushBodyOf } from '../src/http/a2a/push-configs.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Runs of async Bees: start one, read, wait for, cancel and list them. */
    runs: RunService
    /** Runs' events (GET /api/runs/{id}/events), kept as rows and announced to every instance. */
    runEvents: RunEvents
    /** The streams this instance holds open, up to STREAM_MAX_OPEN. */
    openStreams: OpenStreams
  }
}

/** Deliveries of completion webhooks at once in one instance: each waits on a receiver, at most CALLBACK_TIMEOUT_MS. */
const CALLBACK_CONCURRENCY = 4

/** A queue of records that are their own jobs: the rows themselves on SQLite, pg-boss's job `job` (RUN_JOB unless named) on PostgreSQL. */
async function recordQueue (fastify: FastifyInstance, worker: RecordWorker, names: { log: string, job?: string }, concurrency: number, log: Logger) {
  const { config, ledger } = fastify
  // pg-boss (and pg) load only for PostgreSQL, as the ledger's driver does.
  return ledger.dialect === 'postgres'
    ? new (await import('../src/core/runs/pg-boss-run-queue.js')).PgBossRunQueue(worker, {
      ...(names.job === undefined ? {} : { job: names.job }),
      connectionString: config.DATABASE_URL,
      schema: config.PREPARATION_QUEUE_SCHEMA,
      concurrency,
      pollMs: config.RUN_POLL_MS,
      // pg-boss keeps a job active for less than a day; a run's own lease says sooner when its worker died.
      expireInSeconds: Math.min(config.RUN_QUEUE_SECONDS + config.RUN_MAX_SECONDS + config.RUN_LEASE_SECONDS, 86_000),
      lostJobSeconds: Math.max(5, (config.RUN_POLL_MS / 1000) * 5),
      log,
      onConnectionLost: (error) => { fastify.storeHealth.connectionLost(error) }
    })
    : new DatabaseQueue(worker, { name: names.log, concurrency, pollMs: config.RUN_POLL_MS, log })
}

/**
 * Runs of async Bees: the worker that runs them and its queue (the run rows themselves on SQLite, pg-boss on
 * PostgreSQL), and the use cases the execute door and the runs routes call. Either way a run's claim is one conditional
 * UPDATE, so a run is worked on once, and a run left by a process that died is claimed again once its lease passes.
 * Their completion webhooks ride a queue of their own the same way, told when a run ended here; one ended elsewhere
 * (or whose telling was lost) is found by that queue's poll. Started once the server is ready, stopped before the
 * ledger closes.
 */
export default fp(async (fastify) => {
  const { config, ledger, registry } = fastify
  // Their failures while the database is away (a claim, a heartbeat) count toward the ledger's outage, logged there once.
  const log = fastify.storeHealth.logger(fastify.log)
  const sender = new CallbackSender(fastify.catalog.egress)
  const callbacks = await recordQueue(fastify, new CallbackWorker({
    ledger,
    sender,
    maxAttempts: config.RUN_CALLBACK_MAX_ATTEMPTS,
    retrySeconds: config.RUN_CALLBACK_RETRY_SECONDS,
    // Orphans are few and wait for the retention anyway: a look a minute is enough.
    sweepMs: Math.max(config.RUN_POLL_MS, 60_000),
    retentionHours: config.RUN_RETENTION_HOURS,
    log,
    pushBody: pushBodyOf
  }), { log: 'run callback', job: 'run-callback' }, CALLBACK_CONCURRENCY, log)
  // A lost notification delays a reader until its next look: at most every 5 s, and at RUN_POLL_MS when that is longer.
  const events = new RunEvents({ ledger, log, pollMs: Math.max(5000, config.RUN_POLL_MS), relistenMs: 1000 })
  const signals = new RunSignals((runId) => {
    events.publish(runId)
    ledger.runCallbacks.hasDue(runId).then(async (due) => { if (due) await callbacks.enqueue(runId) })
      .catch((error: unknown) => log.warn({ err: error, runId }, 'run callback not queued: the poll will find it'))
  })
  const worker = new RunWorker({
    ledger, registry, signals, events, leaseSeconds: config.RUN_LEASE_SECONDS, sweepMs: config.RUN_POLL_MS, retentionHours: config.RUN_RETENTION_HOURS, log
  })
  const queue = await recordQueue(fastify, worker, { log: 'run' }, config.RUN_CONCURRENCY, log)
  fastify.decorate('runs', new RunService({
    ledger,
    signals,
    enqueue: async (id) => { await queue.enqueue(id) },
    holdTimeoutSeconds: config.HOLD_TIMEOUT_SECONDS,
    queueSeconds: config.RUN_QUEUE_SECONDS,
    runMaxSeconds: config.RUN_MAX_SECONDS,
    maxPerWallet: config.RUN_MAX_PER_WALLET,
    egress: fastify.catalog.egress,
    log
  }))
  fastify.decorate('runEvents', events)
  fastify.decorate('openStreams', new OpenStreams(config.STREAM_MAX_OPEN))
  fastify.addHook('onReady', async () => {
    await events.start()
    await queue.start()
    await callbacks.start()
  })
  fastify.addHook('onClose', async () => {
    await queue.stop()
    await callbacks.stop()
    await sender.close()
    await events.stop()
  })
}, { name: 'runs', dependencies: ['config', 'ledger', 'registry', 'catalog'] })
