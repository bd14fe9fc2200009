import fp from 'fastify-plugin'
import { SiteFetcher } from '../src/core/preparations/crawl/fetch-page.js'
import type { PreparerOptions } from '../src/core/preparations/prepare.js'
import { DatabaseQueue } from '../src/core/preparations/queue/database-queue.js'
import type { PreparationQueue } from '../src/core/preparations/queue/preparation-queue.js'
import { PreparationService } from '../src/core/preparations/service.js'
import { PreparationWorker, type Prepare } from '../src/core/preparations/worker.js'

/**
 * The preparer, loaded with the first job: its HTML parsers (cheerio, linkedom, Readability) cost start-up
 * time and memory an instance that never prepares a site should not pay.
 */
function lazyPreparer (options: PreparerOptions): Prepare {
  let loaded: Promise<Prepare> | undefined
  return async (...args) => {
    loaded ??= import('../src/core/preparations/prepare.js').then(({ websitePreparer }) => websitePreparer(options))
    return await (await loaded)(...args)
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Website preparations' use cases: submit, read, edit, review, retry, cancel and delete a record. */
    preparations: PreparationService
  }
}

/**
 * Website preparations: the worker that crawls a site and composes its files (the summary runs through
 * the executor), and the queue that feeds it (the database itself on SQLite, pg-boss on PostgreSQL),
 * started once the server is ready and stopped before the ledger closes (a run in progress goes back to
 * the queue); and the use cases that feed it.
 */
export default fp(async (fastify) => {
  const { config, ledger, executor, catalog } = fastify
  // Their failures while the database is away (a claim, a heartbeat, pg-boss's polls) count toward the ledger's outage,
  // logged there once; every one is retried in its own time (a poll, a job's retry).
  const log = fastify.storeHealth.logger(fastify.log)
  const fetcher = new SiteFetcher(catalog.egress, `ApiaryPreparer/1.0 (+mailto:${config.PREPARER_EMAIL})`, config.PREPARATION_PAGE_TIMEOUT_MS)
  const worker = new PreparationWorker({
    repository: ledger.preparations,
    prepare: lazyPreparer({
      fetcher,
      executor,
      log,
      limits: {
        maxPages: config.PREPARATION_MAX_PAGES,
        pageMaxBytes: config.PREPARATION_PAGE_MAX_BYTES,
        totalMaxBytes: config.PREPARATION_TOTAL_MAX_BYTES,
        totalTimeoutMs: config.PREPARATION_TOTAL_TIMEOUT_MS
      }
    }),
    leaseSeconds: config.PREPARATION_LEASE_SECONDS,
    maxAttempts: config.PREPARATION_MAX_ATTEMPTS,
    retryDelaySeconds: config.PREPARATION_RETRY_DELAY_SECONDS,
    preparerEmail: config.PREPARER_EMAIL,
    log,
    ...(fastify.metrics === null ? {} : { onRunEnded: fastify.metrics.preparationRan.bind(fastify.metrics) })
  })
  // pg-boss (and pg) load only for PostgreSQL, as the ledger's driver does.
  const queue: PreparationQueue = ledger.dialect === 'postgres'
    ? new (await import('../src/core/preparations/queue/pg-boss-queue.js')).PgBossQueue(worker, {
      connectionString: config.DATABASE_URL,
      schema: config.PREPARATION_QUEUE_SCHEMA,
      concurrency: config.PREPARATION_CONCURRENCY,
      pollSeconds: Math.max(0.5, config.PREPARATION_POLL_MS / 1000),
      maxAttempts: config.PREPARATION_MAX_ATTEMPTS,
      retryDelaySeconds: config.PREPARATION_RETRY_DELAY_SECONDS,
      // A run ends within the crawl's time budget, the summary and the files: a job active far longer lost its worker.
      expireInSeconds: Math.ceil(config.PREPARATION_TOTAL_TIMEOUT_MS / 1000) + 300,
      resendSeconds: config.PREPARATION_RESEND_SECONDS,
      repository: ledger.preparations,
      log,
      onConnectionLost: (error) => { fastify.storeHealth.connectionLost(error) }
    })
    : new DatabaseQueue(worker, { concurrency: config.PREPARATION_CONCURRENCY, pollMs: config.PREPARATION_POLL_MS, log })
  fastify.decorate('preparations', new PreparationService({ store: ledger.preparations, queue, egress: catalog.egress, preparerEmail: config.PREPARER_EMAIL }))
  fastify.addHook('onReady', async () => { await queue.start() })
  fastify.addHook('onClose', async () => {
    await queue.stop()
    await fetcher.close()
  })
}, { name: 'preparations', dependencies: ['config', 'ledger', 'executor', 'catalog', 'metrics'] })
