import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import type { HoneySerializer } from '../../core/execution/execution.js'
import { fromMicros } from '../../core/money.js'
import { PAYMENT_RESPONSE_HEADER, PAYMENT_SIGNATURE_HEADER } from '../../core/x402/schemas.js'
import { baseUrlOf } from '../base-url.js'
import { BALANCE_HEADER, BEE_VERSION_HEADER, COST_HEADER, IDEMPOTENCY_HEADER, REPLAYED_HEADER } from '../execution-headers.js'
import { walletTokenOf } from '../wallet-token.js'
import { endWithStep, whenStepped } from './hook-steps.js'
import { claimRun, isRunCall, startRun } from './runs.js'
import { isStreamCall, streamBee } from './streams.js'

/*
 * The hooks and the handler of every execute route, in the pipeline's order: each is a thin call into the core's step of
 * the same name (src/core/execution/executor.ts). The steps that may need no promise are callback hooks, not async
 * ones: a loaded Bee, no Idempotency-Key, no limit of the Bee's own pass on at once.
 */

/** The x402 payment a request presents in PAYMENT-SIGNATURE, decoded; undefined when x402 is off or none was sent. */
function x402PaymentOf (request: FastifyRequest): unknown {
  const header = request.headers[PAYMENT_SIGNATURE_HEADER]
  const { x402 } = request.server
  if (x402 === null || typeof header !== 'string' || header.length === 0) return undefined
  return x402.decodeSignature(header)
}

/** This call's URL, as x402 offers name the resource; a request whose Host cannot be printed is named by its path. */
function resourceOf (request: FastifyRequest): string {
  try {
    return `${baseUrlOf(request)}${request.url}`
  } catch {
    return request.url
  }
}

/** The version a call pins; a header sent twice is joined with a comma, which no version has, and is refused. */
function versionOf (request: FastifyRequest): string | undefined {
  const pin = request.headers[BEE_VERSION_HEADER]
  return Array.isArray(pin) ? pin.join(', ') : pin
}

/**
 * preValidation, the core's admission: finds the Bee (404 when unknown, before the body is even looked at) in the version
 * Bee-Version pins, refuses an inactive one with 409, marks a deprecated one with Deprecation/Sunset, and names the
 * version that answers.
 */
export function admitBee (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const admitting = request.server.executor.admit({
    bee: request.routeOptions.config.bee ?? (request.params as { id: string }).id,
    walletToken: walletTokenOf(request),
    x402Payment: x402PaymentOf(request),
    // Named only where x402 can offer anything.
    resource: request.server.x402 === null ? undefined : resourceOf(request),
    requestId: request.id,
    log: request.log,
    version: versionOf(request)
  })
  whenStepped(admitting, done, (admitted) => {
    if (!admitted.ok) {
      done(admitted.error)
      return
    }
    request.execution = admitted.execution
    const { status, sunsetAt, lastUpdated, version } = admitted.execution.bee.record
    reply.header(BEE_VERSION_HEADER, version)
    if (status === 'deprecated') {
      // RFC 9745: when it was deprecated, as a structured-field date; RFC 8594: when it goes away.
      reply.header('deprecation', `@${Math.floor(Date.parse(lastUpdated) / 1000)}`)
      if (sunsetAt !== null) reply.header('sunset', new Date(sunsetAt).toUTCString())
    }
    done()
  })
}

/** preHandler of the generic route, whose route schema cannot know the Bee: the core validates the body. */
export function validateBody (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (request.execution === null) done()
  else endWithStep(request.server.executor.validate(request.execution, request.body), done)
}

/** preHandler: claims the Idempotency-Key (or the x402 payment), or replays, refuses or conflicts. */
export function claimIdempotencyKey (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const { execution } = request
  if (execution === null) {
    done()
    return
  }
  if (isRunCall(execution) && !isStreamCall(request)) {
    claimRun(request, reply, done)
    return
  }
  whenStepped(request.server.executor.claim(execution, request.headers[IDEMPOTENCY_HEADER], request.body), done, (claimed) => {
    if (!claimed.ok) {
      done(claimed.error)
      return
    }
    if (claimed.replay === null) {
      done()
      return
    }
    const { payment } = claimed.replay
    // The replay of a call paid with x402 carries the settlement that paid for it, as the first answer did.
    if (payment != null) reply.header(PAYMENT_RESPONSE_HEADER, request.server.x402?.encodeResponse(payment))
    // Answered here: the hooks after this one and the handler do not run.
    reply.code(claimed.replay.status).header(REPLAYED_HEADER, 'true')
      .type('application/json; charset=utf-8').send(claimed.replay.body)
  })
}

/** preHandler after the idempotency claim (a replay never counts) and before the hold: the Bee's own rate limit. */
export function limitBee (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (request.execution === null) done()
  else endWithStep(request.server.executor.limit(request.execution), done)
}

/**
 * The payment preHandler, on the routes of Bees that may cost: the core's payment step, which places a hold on the
 * caller's wallet (or reuses the pending hold of the claim it took over), or answers 402. A free Bee's call (the
 * generic route has this step for every Bee) passes without a microtask.
 */
export function chargeForCall (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (request.execution === null) done()
  else endWithStep(request.server.executor.hold(request.execution), done)
}

/**
 * The handler: the core runs the Bee and sells its answer. The route's own serializer (the reply's) makes the
 * bytes, so they are exactly what returning the object would send, and the stored replay is them. They are
 * returned, not sent: Fastify sends a returned string as it is (the type says JSON), where a returned reply
 * would have the handler's promise wait for the response to finish (Reply.then), listeners and all.
 */
export async function runBee (request: FastifyRequest, reply: FastifyReply): Promise<string | undefined> {
  const execution = request.execution as NonNullable<FastifyRequest['execution']>
  if (isStreamCall(request)) {
    await streamBee(request, reply)
    return
  }
  if (isRunCall(execution)) return await startRun(request, reply)
  // The route's serializer is fast-json-stringify's, which makes a string (Fastify's type allows any serializer's buffers too).
  const sold = await request.server.executor.run(execution, request.body, reply as FastifyReply & HoneySerializer)
  if (!sold.ok) throw sold.error
  if (sold.charge !== null) {
    reply.header(COST_HEADER, fromMicros(sold.charge.micros))
    reply.header(BALANCE_HEADER, fromMicros(sold.charge.balanceMicros))
  }
  if (sold.payment !== null) reply.header(PAYMENT_RESPONSE_HEADER, request.server.x402?.encodeResponse(sold.payment))
  reply.type('application/json; charset=utf-8')
  return sold.body
}

/** onSend: frees a key its execution did not complete, so the retry of a failure really retries. */
export function settleIdempotencyKey (request: FastifyRequest, _reply: FastifyReply, payload: unknown,
  done: (error: Error | null, payload?: unknown) => void): void {
  const released = request.execution === null ? undefined : request.server.executor.release(request.execution)
  if (released === undefined) done(null, payload)
  else released.then(() => { done(null, payload) }, done)
}
