import rateLimit, { normalizeIP } from '@fastify/rate-limit'
import type { FastifyRequest, onRequestHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { RateLimitedError } from '../src/core/errors.js'
import { hashSecret, secretsMatch } from '../src/core/ledger/secrets.js'
import { storeFaultOf } from '../src/core/ledger/store-faults.js'
import { bearerOf } from '../src/http/bearer.js'
import { countedInProcess } from '../src/http/rate-limit/counted-in-process.js'
import { libraryOptions, type Counting } from '../src/http/rate-limit/counting.js'
import { isVerificationToken } from '../src/core/tokens/shape.js'
import { rateLimitedResponse } from '../src/http/rate-limited-response.js'
import { rememberedIds } from '../src/http/remembered-ids.js'
import { walletTokenOf } from '../src/http/wallet-token.js'

/**
 * A client address as @fastify/rate-limit's normalizeIP writes it. An IPv4 address (no colon) is already in that
 * form: the shortcut skips node:net's isIPv6, a long regular expression run on every anonymous request.
 */
const addressOf = (ip: string) => ip.includes(':') ? normalizeIP(ip) : ip

/** Who a request is counted as: its wallet, its publisher (or the operator), or its client address. */
type CallerClass = 'wallet' | 'publisher' | 'anonymous'

const counted: Record<CallerClass, string> = { wallet: 'this wallet', publisher: 'this key', anonymous: 'this address' }

/**
 * Per-caller rate limits on every route but /health and /ready (route config `rateLimit: false`),
 * checked first in onRequest: before credentials are checked, the body is read or anything is held,
 * so a limited request costs almost nothing and is never charged. A request counts against its wallet,
 * else its publisher key or admin token, else its client address; a credential counts only if it is
 * valid, or anyone could dodge the address's limit with a made-up token per request. A verification
 * token counts against its wallet, not itself: a holder mints tokens at will, so a limit per token would
 * be no limit. It is verified in-process (its signature: no database round trip once its key is cached);
 * a forged one counts as its client address. Keys name wallets and publishers by id, never by a secret.
 * With REDIS_URL the counters are shared by every instance, under REDIS_KEY_PREFIX.
 */
export default fp(async (fastify) => {
  const { config, ledger, redis, walletTokens } = fastify
  const limits: Record<CallerClass, number> = {
    wallet: config.RATE_LIMIT_WALLET_PER_WINDOW,
    publisher: config.RATE_LIMIT_PUBLISHER_PER_WINDOW,
    anonymous: config.RATE_LIMIT_ANONYMOUS_PER_WINDOW
  }
  if (Object.values(limits).every((limit) => limit === 0)) return
  const classes = new WeakMap<FastifyRequest, CallerClass>()

  // Counting a caller must not cost every request a database round trip before the route's own.
  const walletIdOf = rememberedIds(async (hash) => await ledger.wallets.idByToken(hash))
  const publisherIdOf = rememberedIds(async (hash) => (await ledger.catalog.publisherByKey(hash))?.id ?? null)

  async function walletOf (credential: string): Promise<string | null> {
    if (!isVerificationToken(credential)) return await walletIdOf(hashSecret(credential))
    const verified = await walletTokens.signer.verify(credential)
    return verified.ok ? verified.walletId : null
  }

  async function identify (request: FastifyRequest): Promise<[CallerClass, string]> {
    const token = walletTokenOf(request)
    const walletId = token === undefined ? null : await walletOf(token)
    if (walletId !== null) return ['wallet', walletId]
    const bearer = bearerOf(request)
    if (bearer === undefined) return ['anonymous', addressOf(request.ip)]
    if (config.ADMIN_TOKEN !== undefined && secretsMatch(bearer, config.ADMIN_TOKEN)) return ['publisher', 'admin']
    const publisherId = await publisherIdOf(hashSecret(bearer))
    return publisherId === null ? ['anonymous', addressOf(request.ip)] : ['publisher', publisherId]
  }

  /**
   * The key of a request: at once, with no promise, for one without credentials (an anonymous read, the usual
   * discovery call), which counts as its address and needs no class remembered (classOf's default), and for a
   * wallet key whose wallet is remembered (the usual paid call: a caller's second and later calls).
   */
  function keyOf (request: FastifyRequest): string | Promise<string> {
    const token = walletTokenOf(request)
    if (token === undefined && bearerOf(request) === undefined) return `anonymous:${addressOf(request.ip)}`
    const walletId = token === undefined || isVerificationToken(token) ? undefined : walletIdOf.peek(hashSecret(token))
    if (walletId === undefined) return credentialKeyOf(request)
    classes.set(request, 'wallet')
    return `wallet:${walletId}`
  }

  async function credentialKeyOf (request: FastifyRequest): Promise<string> {
    let caller: [CallerClass, string]
    try {
      caller = await identify(request)
    } catch (error) {
      // The ledger is down: the route will say so (and its outage is logged once); meanwhile the caller counts as its address.
      request.log[storeFaultOf(error) === null ? 'warn' : 'debug']({ err: error }, 'rate limit: credential lookup failed, counting the client address')
      caller = ['anonymous', addressOf(request.ip)]
    }
    classes.set(request, caller[0])
    return `${caller[0]}:${caller[1]}`
  }
  const classOf = (request: FastifyRequest) => classes.get(request) ?? 'anonymous'

  const windowMs = config.RATE_LIMIT_WINDOW_SECONDS * 1000
  const refusal = (request: FastifyRequest, max: number, ttlMs: number) => {
    const retryAfter = Math.ceil(ttlMs / 1000)
    fastify.metrics?.callerRateLimited()
    return new RateLimitedError('RATE_LIMITED', `Too many requests from ${counted[classOf(request)]}: at most ${max} every ` +
      `${config.RATE_LIMIT_WINDOW_SECONDS} s. Retry in ${retryAfter} s (Retry-After); nothing was charged.`, retryAfter)
  }

  const counting: Counting = {
    keyOf,
    maxOf: (request) => limits[classOf(request)],
    windowMs,
    refusal,
    someUnlimited: Object.values(limits).includes(0)
  }

  /** With Redis: @fastify/rate-limit's own hook and its Redis store, so that every instance counts into the same window. */
  async function sharedThroughRedis (connection: NonNullable<typeof redis>): Promise<onRequestHookHandler> {
    await fastify.register(rateLimit, {
      ...libraryOptions(counting),
      redis: connection,
      nameSpace: `${config.REDIS_KEY_PREFIX}rate-limit:`,
      // Redis unreachable: serve without limits rather than fail every request.
      skipOnError: true
    })
    return fastify.rateLimit()
  }

  const limit = redis === null ? countedInProcess(counting) : await sharedThroughRedis(redis)
  fastify.addHook('onRoute', (route) => {
    if (route.config?.rateLimit === false) return
    // First of the route's onRequest hooks, so it comes before the credential checks too.
    route.onRequest = [limit, ...[route.onRequest ?? []].flat()]
    const responses = route.schema?.response as Record<string, unknown> | undefined
    if (responses !== undefined && responses[429] === undefined) responses[429] = rateLimitedResponse
  })
}, { name: 'rate-limit', dependencies: ['config', 'errors', 'ledger', 'redis', 'metrics', 'wallet-tokens'] })
