import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import type { Execution } from '../../core/execution/execution.js'
import type { StoredRun } from '../../core/ledger/runs/run-repository.js'
import { runErrorOf, runView, type CallbackTarget } from '../../core/runs/service.js'
import { Run } from '../../core/runs/schemas.js'
import { ref } from '../../core/schemas.js'
import type { ErrorCodes } from '../../core/registry.js'
import { Type, type TObject } from 'typebox'
import { CALLBACK_HEADER, IDEMPOTENCY_HEADER, REPLAYED_HEADER } from '../execution-headers.js'

/*
 * The execute door's runs: a call to an async (or stream) Bee becomes a run, answered 202 with its Location at once
 * (Prefer: respond-async, RFC 7240), or once it ended if that comes within Prefer: wait=N (at most RUN_WAIT_SECONDS).
 */

const header = (description: string) => ({ type: 'string', description })

/** The 202 of a call that became a run. */
export const RUN_ACCEPTED = {
  ...ref(Run),
  description: 'An async Bee\'s run, not finished yet: poll its Location.',
  headers: { location: header('The run.'), 'preference-applied': header('respond-async, if asked (RFC 7240).') }
}

/**
 * What any Bee's call can fail with, with what only a run can: a refused Callback-Url, the wallet's limit of runs,
 * expiring while the call waited for it.
 */
export const withRunCodes = (upstream: ErrorCodes): ErrorCodes => ({
  ...upstream, 400: [...upstream[400] ?? [], 'CALLBACK_URL_INVALID'], 429: [...upstream[429] ?? [], 'RUN_LIMIT_REACHED'], 504: [...upstream[504] ?? [], 'RUN_EXPIRED']
})

/** An execute route's request headers, with a run's: Prefer and Callback-Url. */
export const withRunHeaders = <T extends TObject>(headers: T) => Type.Object({
  ...headers.properties,
  prefer: Type.Optional(Type.String({
    description: 'Async Bees (RFC 7240): respond-async (202 at once) or wait=N.',
    examples: ['respond-async']
  })),
  [CALLBACK_HEADER]: Type.Optional(Type.String({
    maxLength: 2048,
    description: 'Async Bees: an https URL POSTed the run once it ended, signed (Standard Webhooks) with the 202\'s callbackSecret. Answers 202 at once.'
  }))
})

/** The callback a run call asks for (Callback-Url); null when none. */
function callbackOf (request: FastifyRequest): CallbackTarget | null {
  const url = request.headers[CALLBACK_HEADER]
  return typeof url === 'string' && url !== '' ? { url, token: null } : null
}

/** Whether the call is one to run: its Bee says its calls outlive a request. */
export const isRunCall = (execution: Execution): boolean => execution.bee.record.config.executionMode !== 'sync'

interface Preferences { respondAsync: boolean, wait: number | undefined }

/** The preferences of RFC 7240 that runs honour, from every Prefer header; the others are ignored, as the RFC allows. */
export function preferencesOf (header: string | string[] | undefined): Preferences {
  const preferences: Preferences = { respondAsync: false, wait: undefined }
  for (const line of Array.isArray(header) ? header : header === undefined ? [] : [header]) {
    for (const item of line.split(',')) {
      const [token = '', value] = (item.split(';')[0] ?? '').split('=').map((part) => part.trim().replace(/^"(.*)"$/, '$1'))
      if (token.toLowerCase() === 'respond-async') preferences.respondAsync = true
      if (token.toLowerCase() === 'wait' && value !== undefined && /^\d{1,9}$/.test(value)) preferences.wait = Number(value)
    }
  }
  return preferences
}

/** Where the run is read: with the run key, for a run that has no owner, since that key is all that finds it. */
const locationOf = (run: StoredRun, runKey: string | null) => `/api/runs/${run.id}${runKey === null ? '' : `?key=${runKey}`}`

/** The 202 of a run not ended yet (or ended otherwise than by its answer): the run, and where to poll it. */
function accepted (reply: FastifyReply, run: StoredRun, runKey: string | null, respondAsync: boolean, callbackSecret: string | null = null): string {
  reply.code(202).header('location', locationOf(run, runKey)).header('retry-after', '1')
  if (respondAsync) reply.header('preference-applied', 'respond-async')
  reply.type('application/json; charset=utf-8')
  return JSON.stringify(runView(run, runKey, callbackSecret))
}

/**
 * preHandler in place of the idempotency claim: the caller's Idempotency-Key gives back the run it started, as it is
 * now; a new run is admitted (its Callback-Url checked, the wallet's limit of runs) before its hold.
 */
export function claimRun (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const execution = request.execution as Execution
  const { runs } = request.server
  const replayedOrAdmitted = async (): Promise<StoredRun | null> => {
    const run = await runs.replay(execution, request.headers[IDEMPOTENCY_HEADER], request.body)
    if (run === null) await runs.admit(execution, callbackOf(request))
    return run
  }
  replayedOrAdmitted().then((run) => {
    if (run === null) {
      done()
      return
    }
    reply.header(REPLAYED_HEADER, 'true')
    reply.send(accepted(reply, run, null, preferencesOf(request.headers.prefer).respondAsync))
  }, done)
}

/**
 * The handler of a run call, once the hold is placed: queues the run, then answers 202 at once (respond-async), or
 * waits for it and answers as a sync call would: its Honey, or its failure with the failure's status.
 */
export async function startRun (request: FastifyRequest, reply: FastifyReply): Promise<string> {
  const execution = request.execution as Execution
  const { runs, config } = request.server
  const key = request.headers[IDEMPOTENCY_HEADER]
  const { respondAsync, wait } = preferencesOf(request.headers.prefer)
  const callback = callbackOf(request)
  const started = await runs.start(execution, request.body, typeof key === 'string' ? key : null, callback)
  if (!started.created) reply.header(REPLAYED_HEADER, 'true')
  // A caller to be called back is answered at once: the callback's secret is in this answer only.
  if (respondAsync || callback !== null) return accepted(reply, started.run, started.runKey, respondAsync, started.callbackSecret)
  const run = await runs.wait(started.run, Math.min(wait ?? config.RUN_WAIT_SECONDS, config.RUN_WAIT_SECONDS))
  reply.header('content-location', locationOf(run, started.runKey))
  if (run.status === 'succeeded' && run.honey !== null) {
    reply.type('application/json; charset=utf-8')
    return run.honey
  }
  const failed = run.error?.status === undefined ? null : runErrorOf(run)
  if (failed !== null) throw failed
  return accepted(reply, run, started.runKey, false)
}
