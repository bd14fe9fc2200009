import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import { ApiError, failure } from '../../core/errors.js'
import type { Execution } from '../../core/execution/execution.js'
import type { ErrorCodes } from '../../core/registry.js'
import { Type, type TObject } from 'typebox'
import { streamCall } from '../../core/streams/stream-call.js'
import { acceptsEventStream, SseStream, takeStreamPlace } from '../sse.js'

/*
 * The execute door's streams: a stream Bee called with Accept: text/event-stream is answered with Server-Sent Events,
 * its events relayed as they come, then its Honey (docs/runs.md, Streams). Called otherwise, it runs as a run.
 */

/** Whether the call is answered as a stream: a stream Bee's, with Accept: text/event-stream. */
export const isStreamCall = (request: FastifyRequest): boolean =>
  request.execution?.bee.record.config.executionMode === 'stream' && acceptsEventStream(request.headers.accept)

/** preHandler before the hold (a refusal costs nothing): a stream's call takes a place among the open streams. */
export function admitStream (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (isStreamCall(request)) takeStreamPlace(request, reply, done)
  else done()
}

/** What a call to any Bee can fail with, with what only a stream's can: no place for it, a bad event, a client too slow (the last two in its error event). */
export const withStreamCodes = (upstream: ErrorCodes): ErrorCodes => ({
  ...upstream,
  502: [...upstream[502] ?? [], 'BEE_EVENT_INVALID'],
  503: [...upstream[503] ?? [], 'STREAMS_FULL', 'STREAM_TOO_SLOW']
})

/** An execute route's request headers, with Accept. */
export const withAccept = <T extends TObject>(headers: T) => Type.Object({
  ...headers.properties,
  accept: Type.Optional(Type.String({ description: 'text/event-stream: a stream Bee answers Server-Sent Events: data and progress events, then honey (docs/runs.md).' }))
})

const gone = () => new Error('the stream\'s client is gone')

/**
 * The handler of a stream's call, once the hold is placed: relays each event (`data`, `progress`) as the upstream sends
 * it, then ends with the `honey` event (captured once), or an `error` event (voided). A client that goes, or does not
 * read, stops the upstream at once.
 */
export async function streamBee (request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const execution = request.execution as Execution
  const { executor, ledger, config, storeHealth } = request.server
  const sse = new SseStream(reply)
  try {
    const outcome = await streamCall({ executor, ledger, runMaxSeconds: config.RUN_MAX_SECONDS, holdTimeoutSeconds: config.HOLD_TIMEOUT_SECONDS },
      execution, request.body, {
        data: (event) => { if (!sse.send('data', JSON.stringify(event))) throw gone() },
        progress: (progress) => { if (!sse.send('progress', JSON.stringify({ progress }))) throw gone() }
      }, sse.signal)
    if (outcome.ok) sse.send('honey', outcome.body)
    else sse.error(outcome.error)
  } catch (error) {
    const refused = storeHealth.refusal(error)
    if (refused === null) request.log.error({ err: error }, 'stream failed')
    sse.error(refused ?? (error instanceof ApiError ? error : failure('INTERNAL_ERROR', 'The stream failed on our side. You were not charged.')))
  } finally {
    sse.end()
    // The reply's onSend, which frees an uncompleted Idempotency-Key, does not run for a hijacked reply.
    await executor.release(execution)
  }
}
