import fp from 'fastify-plugin'
import { openStore } from '../src/core/ledger/open-store.js'
import { commaList } from '../src/core/comma-list.js'
import { WrongSecretsKey } from '../src/core/ledger/secrets.js'
import type { Ledger } from '../src/core/ledger/ledger.js'
import { StoreHealth } from '../src/core/store-health.js'
import { withStoreRefusals } from '../src/http/store-refusals.js'

declare module 'fastify' {
  interface FastifyInstance {
    ledger: Ledger
    /** Whether the ledger database answers: turns its failures into 503s and logs its outages (src/core/store-health.ts). */
    storeHealth: StoreHealth
  }
}

/**
 * How long after the port opens SQLite's checkpoint thread starts. Started as the port opened, its boot (a Node
 * instance of its own) ran beside the answers to the first /health probes and made them later on a 2-core host.
 */
const CHECKPOINTS_AFTER_LISTEN_MS = 1000

/**
 * Opens the ledger named by DATABASE_URL (migrations run on open), brings its signing secrets under the
 * current SECRETS_KEY, and closes it with the server. A route that lists a 503 lists the ledger's too.
 */
export default fp(async (fastify) => {
  const { config } = fastify
  // Probed once open: a connection lost while migrating fails the start anyway.
  const opened: { ledger?: Ledger } = {}
  const storeHealth = new StoreHealth({
    log: fastify.log,
    probe: async (write) => { await opened.ledger?.ping({ write }) }
  })
  // SQLite's checkpoint thread starts a second after the port opens: its boot is neither part of the start nor beside
  // the first probes' answers (wal-checkpoints.ts). An instance that never listens (tests through inject) has none, and
  // its connection checkpoints itself.
  let listening = () => {}
  const checkpointsFrom = new Promise<void>((resolve) => { listening = resolve })
  const ledger = await openStore(config.DATABASE_URL, {
    poolSize: config.DATABASE_POOL_SIZE,
    secretsKey: config.SECRETS_KEY,
    previousSecretsKeys: commaList(config.SECRETS_KEY_PREVIOUS),
    platformFeeBps: config.PLATFORM_FEE_BPS,
    onConnectionLost: (error) => { storeHealth.connectionLost(error) },
    log: fastify.log,
    checkpointsFrom
  })
  opened.ledger = ledger
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
  fastify.decorate('storeHealth', storeHealth)
  fastify.addHook('onRoute', (route) => {
    const responses = route.schema?.response as Record<string, unknown> | undefined
    if (responses?.[503] !== undefined) responses[503] = withStoreRefusals(responses[503])
  })
  fastify.addHook('onListen', async () => { setTimeout(listening, CHECKPOINTS_AFTER_LISTEN_MS).unref() })
  fastify.addHook('onClose', async () => {
    storeHealth.close()
    await ledger.close()
  })
}, { name: 'ledger', dependencies: ['config'] })
