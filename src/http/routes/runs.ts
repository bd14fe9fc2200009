import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyBaseLogger, FastifyRequest } from 'fastify'
import { failure } from '../../core/errors.js'
import { Type } from 'typebox'
import { hashSecret } from '../../core/ledger/secrets.js'
import type { StoredRun } from '../../core/ledger/runs/run-repository.js'
import type { RunEvents } from '../../core/runs/run-events.js'
import { runView, type RunCaller } from '../../core/runs/service.js'
import { Run, UNFINISHED } from '../../core/runs/schemas.js'
import { PageQuery, paged, ref, ValidationErrorBody, WALLET_HEADER_NAME } from '../../core/schemas.js'
import { BODY_NOT_JSON, PAGE_REFUSED, REQUEST_CODES, refusal, STREAMS_FULL, TOKEN_HOLDER_REQUIRED } from '../refusals.js'
import { walletTokenOf } from '../wallet-token.js'
import { SseStream, takeStreamPlace } from '../sse.js'

const IdParams = Type.Object({ id: Type.String({ description: 'Run id.' }) })

const KeyQuery = Type.Object({ key: Type.Optional(Type.String({ maxLength: 200, description: 'The run key (runKey), for a run without a wallet token.' })) })

const EventsHeaders = Type.Object({
  'last-event-id': Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$', description: 'Resume after this event (its id).' }))
})

/** The events answer: described, not serialized (the stream is written as it comes). */
const RUN_EVENTS = {
  description: 'Server-Sent Events: `progress`, `data` (a stream Bee\'s events, each with its id), then `honey` (succeeded) or `end` (the run, otherwise).',
  content: { 'text/event-stream': { schema: { type: 'string', description: 'The event stream.', example: 'id: 1\nevent: data\ndata: {"tick":1}\n\nevent: honey\ndata: {"beeId":"ticker"}\n\n' } } }
}

const RUN = ref(Run)
const NOT_FOUND = refusal('No run of yours has this id.', ['RUN_NOT_FOUND'], { name: 'RunNotFound' })
const INVALID = refusal('The query is invalid.', [...REQUEST_CODES, 'VALIDATION_FAILED'], { body: ValidationErrorBody, name: 'RunRequestInvalid' })

/** Who asks: the hash of the wallet credential sent, and the run key in the query (the Location that started the run carries it). */
function runCallerOf (request: FastifyRequest): RunCaller {
  const token = walletTokenOf(request)
  return { tokenHash: token === undefined ? null : hashSecret(token), runKey: (request.query as { key?: string } | undefined)?.key }
}

/**
 * Writes the run's events after `after` as they come (each with its id, for Last-Event-ID), then its end: `honey` when
 * it succeeded, `end` and the run otherwise. Stops when the client goes.
 */
async function followRun (events: RunEvents, run: StoredRun, after: number, sse: SseStream, log: FastifyBaseLogger): Promise<void> {
  try {
    for await (const event of events.follow(run.id, after, sse.signal)) {
      if (event.kind !== 'end') {
        if (!sse.send(event.kind, event.data, event.seq)) return
      } else if (event.run.status === 'succeeded' && event.run.honey !== null) {
        sse.send('honey', event.run.honey)
      } else {
        sse.send('end', JSON.stringify(runView(event.run)))
      }
    }
  } catch (error) {
    log.error({ err: error, runId: run.id }, 'run events failed')
    sse.error(failure('INTERNAL_ERROR', 'Following the run failed on our side; reconnect with Last-Event-ID.'))
  } finally {
    sse.end()
  }
}

/**
 * Runs of async Bees over HTTP: what RunService answers. A run is found only by the caller who started it (the wallet
 * credential that paid, or the run key of a free Bee's run); anyone else's answers 404, as if it did not exist.
 */
const runRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { runs } = fastify
  const tags = ['runs']
  const security: Array<Record<string, string[]>> = [{ walletToken: [] }, {}]

  fastify.get('/runs/:id', {
    schema: {
      tags,
      security,
      operationId: 'get-run',
      summary: 'Read a run',
      description: `Poll until the status is final (Retry-After). With the ${WALLET_HEADER_NAME} that started it, or ?key=.`,
      params: IdParams,
      querystring: KeyQuery,
      response: { 200: RUN, 400: INVALID, 404: NOT_FOUND }
    }
  }, async (request, reply) => {
    const run = await runs.get(runCallerOf(request), request.params.id)
    if (UNFINISHED.includes(run.status)) reply.header('retry-after', '1')
    return runView(run)
  })

  fastify.get('/runs/:id/events', {
    schema: {
      tags,
      security,
      operationId: 'get-run-events',
      summary: 'Follow a run\'s events',
      description: 'Server-Sent Events of the run\'s progress and a stream Bee\'s events, from any instance, resumable with Last-Event-ID; ends with the run.',
      params: IdParams,
      querystring: KeyQuery,
      headers: EventsHeaders,
      response: { 200: RUN_EVENTS, 400: INVALID, 404: NOT_FOUND, 503: STREAMS_FULL }
    },
    preHandler: takeStreamPlace
  }, async (request, reply) => {
    const run = await runs.get(runCallerOf(request), request.params.id)
    const after = Number(request.headers['last-event-id'] ?? 0)
    await followRun(fastify.runEvents, run, after, new SseStream(reply), request.log)
  })

  fastify.post('/runs/:id/cancel', {
    schema: {
      tags,
      security,
      operationId: 'cancel-run',
      summary: 'Cancel a run',
      description: 'Stops a queued or running run and voids its hold; an ended run is answered as it is.',
      params: IdParams,
      querystring: KeyQuery,
      response: { 200: RUN, ...BODY_NOT_JSON, 404: NOT_FOUND }
    }
  }, async (request) => runView(await runs.cancel(runCallerOf(request), request.params.id)))

  fastify.get('/runs', {
    schema: {
      tags,
      security: [{ walletToken: [] }],
      operationId: 'list-runs',
      summary: 'List your runs',
      description: `The runs this ${WALLET_HEADER_NAME} started, newest first.`,
      querystring: PageQuery,
      response: { 200: paged('runs', RUN), 400: PAGE_REFUSED, 401: TOKEN_HOLDER_REQUIRED }
    },
    // A credential no wallet or token answers to is refused, as on the wallet's other routes, before the query is read.
    onRequest: fastify.requireTokenHolder
  }, async (request) => {
    const { tokenHash } = runCallerOf(request)
    const listed = await runs.list(tokenHash as string, request.query)
    return { runs: listed.items.map((run) => runView(run)), nextCursor: listed.nextCursor }
  })
}

export default runRoutes
