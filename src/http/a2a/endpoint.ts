import { bodyOf, failure as apiFailure } from '../../core/errors.js'
import type { ExecutionOutcome, ExecutionRequest } from '../../core/execution/execution.js'
import type { RunStartOutcome } from '../../core/execution/executor.js'
import type { StoredRun } from '../../core/ledger/runs/run-repository.js'
import type { PushConfigs } from '../../core/runs/push-configs.js'
import type { RunEvents } from '../../core/runs/run-events.js'
import { FINISHED } from '../../core/runs/schemas.js'
import type { CallbackTarget, RunService } from '../../core/runs/service.js'
import { taskCallerOf, taskIdOf, type RunCaller } from '../../core/runs/task-ids.js'
import type { OpenStreams } from '../../core/streams/open-streams.js'
import { apiaryDetails, protocolError, RpcCode, type RpcError } from './errors.js'
import { failure, readEnvelope, success } from './json-rpc.js'
import { listTasks } from './list-tasks.js'
import { readCall, taskOf, type SendContext } from './message.js'
import { fromLegacyParams, fromLegacyPushParams, LEGACY_METHODS, toLegacyPushConfig, toLegacyTask, toLegacyUpdate } from './legacy.js'
import { A2A_VERSION, isLegacyVersion, LEGACY_A2A_VERSION } from './protocol.js'
import { answerPushConfig, pushTargetOf, type PushAnswer, type PushMethod } from './push-configs.js'
import type { Task } from './schemas.js'
import { answerTask, findTask, runTaskOf, stateOf } from './tasks.js'
import { taskUpdates } from './updates.js'

export interface A2aEndpointOptions {
  /** The pipeline, an async (or stream) Bee's call becoming a run, told of its push config if any. */
  executeOrStart: (request: ExecutionRequest, callback: CallbackTarget | null) => Promise<ExecutionOutcome | RunStartOutcome>
  /** Runs, awaited, read, cancelled and listed as tasks. */
  runs: Pick<RunService, 'wait' | 'get' | 'cancel' | 'list'>
  /** Runs' events, which streams follow (from any instance). */
  events: Pick<RunEvents, 'follow'>
  pushConfigs: PushConfigs
  /** Whether the Bee is a stream Bee: its streaming send stops with its client. */
  streams: (beeId: string) => Promise<boolean>
  /** This instance's places for open streams (STREAM_MAX_OPEN). */
  places: Pick<OpenStreams, 'take'>
  /** RUN_WAIT_SECONDS: how long a blocking SendMessage waits for an async Bee's run, as HTTP's Prefer: wait does. */
  waitSeconds: number
}

/** A streamed answer (SendStreamingMessage, SubscribeToTask): JSON-RPC responses sent as Server-Sent Events. */
export interface A2aStream {
  /** The request's id, for an error sent in the stream. */
  id: string | number
  /** The responses in order, ending with the task's end; stops when `signal` aborts (the client went). */
  responses: (signal: AbortSignal) => AsyncGenerator<unknown>
  /** Gives back the stream's place among the open streams, once it closed. */
  release: () => void
}

export type A2aAnswer = ReturnType<typeof success> | ReturnType<typeof failure> | A2aStream

const unsupported = (message: string): RpcError => protocolError(RpcCode.unsupportedOperation, 'UNSUPPORTED_OPERATION', message)

const streamsFull = (): RpcError => {
  const error = apiFailure('STREAMS_FULL', 'This instance holds all the streams it keeps open. Nothing ran or was charged; retry shortly.')
  return { code: RpcCode.internalError, message: error.message, data: apiaryDetails(bodyOf(error)) }
}

/**
 * The version a request asks for (A2A §3.6: the A2A-Version header, or the request parameter): 1.0,
 * or 0.3 when it names none, as the spec says to read such a request; any other is refused.
 */
function versionError (version: string): RpcError {
  return protocolError(RpcCode.versionNotSupported, 'VERSION_NOT_SUPPORTED',
    `This endpoint speaks A2A ${A2A_VERSION} (send the header A2A-Version: ${A2A_VERSION}) and ${LEGACY_A2A_VERSION} ` +
    `(no A2A-Version), not "${version.slice(0, 20)}".`,
    { supportedVersions: `${A2A_VERSION}, ${LEGACY_A2A_VERSION}` })
}

const methodNotFound = (method: string, hint: string): RpcError =>
  ({ code: RpcCode.methodNotFound, message: `Method not found: "${method.slice(0, 100)}". ${hint}` })

const PUSH_METHODS = new Set<string>(['CreateTaskPushNotificationConfig', 'GetTaskPushNotificationConfig', 'ListTaskPushNotificationConfigs', 'DeleteTaskPushNotificationConfig'])

/** The methods of 1.0, by name (0.3's are mapped to them, bar ListTasks, which 0.3 has not). */
const METHODS = new Set(['SendMessage', 'SendStreamingMessage', 'GetTask', 'CancelTask', 'SubscribeToTask', 'ListTasks', 'GetExtendedAgentCard', ...PUSH_METHODS])

const configurationOf = (params: unknown): Record<string, unknown> | undefined => {
  const configuration = (params as { configuration?: unknown } | null)?.configuration
  return typeof configuration === 'object' && configuration !== null ? configuration as Record<string, unknown> : undefined
}

/** A 1.0 method name sent without A2A-Version is most likely a 1.0 client that forgot the header. */
function legacyMethodNotFound (method: string): RpcError {
  return methodNotFound(method, METHODS.has(method)
    ? `A request without A2A-Version is A2A ${LEGACY_A2A_VERSION}, whose method is message/send: send A2A-Version: ${A2A_VERSION} to use ${method.slice(0, 100)}.`
    : `A2A ${LEGACY_A2A_VERSION} sends messages with message/send.`)
}

/** 0.3's params in 1.0's shape, for the one reading of each method. */
function fromLegacy (method: string, params: unknown): unknown {
  if (method === 'SendMessage' || method === 'SendStreamingMessage') return fromLegacyParams(params)
  return PUSH_METHODS.has(method) ? fromLegacyPushParams(method, params) : params
}

/** A config method's answer in the version asked: 1.0's objects, or 0.3's (a list is a bare array, a delete null). */
function pushResult (answer: Exclude<PushAnswer, { error: RpcError }>, legacy: boolean): unknown {
  if ('config' in answer) return legacy ? toLegacyPushConfig(answer.config) : answer.config
  if ('configs' in answer) return legacy ? answer.configs.map(toLegacyPushConfig) : { configs: answer.configs, nextPageToken: '' }
  return legacy ? null : {}
}

/**
 * A streaming method's refusal as 0.3 sends it: a stream of the one error response (0.3's clients read a stream's
 * errors only from its events). 1.0's answer it as JSON, before any stream.
 */
function streamedOn (legacy: boolean, answer: A2aAnswer): A2aAnswer {
  if (!legacy || 'responses' in answer) return answer
  return { id: answer.id as string | number, release: () => {}, responses: async function * () { yield answer } }
}

/** The JSON-RPC binding of A2A over the execution core: one request in, one response (or a stream of them) out. */
export class A2aEndpoint {
  readonly #options: A2aEndpointOptions

  constructor (options: A2aEndpointOptions) {
    this.#options = options
  }

  async answer (body: unknown, version: string | undefined, context: SendContext): Promise<A2aAnswer> {
    const envelope = readEnvelope(body)
    if (!envelope.ok) return failure(envelope.id, envelope.error)
    const { id, method } = envelope
    // 0.3: the same methods under other names, and the same answers in 0.3's shapes.
    const legacy = isLegacyVersion(version)
    if (!legacy && version?.trim() !== A2A_VERSION) return failure(id, versionError(version ?? ''))
    const modern = legacy ? LEGACY_METHODS.get(method) : method
    if (modern === undefined) return failure(id, legacyMethodNotFound(method))
    const params = legacy ? fromLegacy(modern, envelope.params) : envelope.params
    const asTask = (task: Task) => legacy ? toLegacyTask(task) : task
    switch (modern) {
      case 'SendMessage': {
        // 1.0 waits unless returnImmediately; 0.3 blocks unless configuration.blocking is false.
        const configuration = configurationOf(params)
        const answer = await this.#send(params, context, legacy ? configuration?.blocking === false : configuration?.returnImmediately === true, legacy)
        return 'task' in answer ? success(id, legacy ? toLegacyTask(answer.task) : answer) : failure(id, answer.error)
      }
      case 'SendStreamingMessage':
        return streamedOn(legacy, await this.#sendStreaming(id, params, context, legacy))
      case 'GetTask':
      case 'CancelTask': {
        const answer = await answerTask(this.#options.runs, modern, params, context)
        return 'task' in answer ? success(id, asTask(answer.task)) : failure(id, answer.error)
      }
      case 'SubscribeToTask':
        return streamedOn(legacy, await this.#subscribe(id, params, context, legacy))
      case 'ListTasks': {
        const answer = await listTasks(this.#options.runs, params, context)
        return 'error' in answer ? failure(id, answer.error) : success(id, answer)
      }
      case 'GetExtendedAgentCard':
        return failure(id, unsupported('There is no extended agent card (capabilities.extendedAgentCard is false).'))
    }
    if (PUSH_METHODS.has(modern)) {
      const answer = await answerPushConfig(this.#options.pushConfigs, modern as PushMethod, params, context, legacy ? 'a2a-0.3' : 'a2a')
      return 'error' in answer ? failure(id, answer.error) : success(id, pushResult(answer, legacy))
    }
    return failure(id, methodNotFound(method, `A2A ${A2A_VERSION} sends messages with SendMessage.`))
  }

  /** The push config a send's configuration carries (1.0's taskPushNotificationConfig; 0.3's read as it), if any. */
  #pushOf (params: unknown, legacy: boolean) {
    const config = configurationOf(params)?.taskPushNotificationConfig
    return config === undefined || config === null ? { target: null } : pushTargetOf(config, legacy ? 'a2a-0.3' : 'a2a')
  }

  /**
   * A SendMessageRequest (1.0's shape) run through the execution core: the finished task, or why there is none. An
   * async Bee's call is a run: its task is answered at once when the client asked not to wait (SUBMITTED), else once
   * the run ended or RUN_WAIT_SECONDS passed, as HTTP's Prefer: wait (then WORKING, to be read with GetTask).
   */
  async #send (params: unknown, context: SendContext, immediately: boolean, legacy: boolean) {
    const started = await this.#start(params, context, legacy)
    if (!('run' in started)) return started
    const { run, taskId, contextId } = started
    const current = immediately ? run : await this.#options.runs.wait(run, this.#options.waitSeconds)
    return { task: runTaskOf(current, taskId, contextId) }
  }

  /** The call run whole (its task, or why there is none), or its run started (with its push config, if any). */
  async #start (params: unknown, context: SendContext, legacy: boolean) {
    const call = readCall(params, context)
    if (!call.ok) return { error: call.error }
    const push = this.#pushOf(params, legacy)
    if ('error' in push) return push
    const outcome = await this.#options.executeOrStart(call.request, push.target)
    // Answered as soon as the core has captured: nothing is awaited between the two.
    if (!('run' in outcome)) return taskOf(outcome, call.contextId)
    const { run, runKey, created } = outcome.run
    const taskId = taskIdOf(run, runKey)
    return { run, taskId, contextId: call.contextId, created, caller: taskCallerOf(taskId, call.request.walletToken).caller }
  }

  /**
   * SendStreamingMessage: the task, then its updates until it ended (updates.ts). A sync Bee's task comes finished, alone.
   * A place among the open streams is taken first: without one, nothing runs.
   */
  async #sendStreaming (id: string | number, params: unknown, context: SendContext, legacy: boolean): Promise<A2aAnswer> {
    const release = this.#options.places.take()
    if (release === null) return failure(id, streamsFull())
    let streaming = false
    try {
      const started = await this.#start(params, context, legacy)
      if ('error' in started) return failure(id, started.error)
      streaming = true
      if ('task' in started) {
        const { task } = started
        return { id, release, responses: async function * () { yield success(id, legacy ? toLegacyTask(task) : { task }) } }
      }
      const { run, taskId, contextId, created, caller } = started
      // A stream Bee's events are its output: with its client gone its run stops, its hold voided, as HTTP's stream door
      // does. An async Bee's task goes on without its stream (A2A §3.5.2), read with GetTask or SubscribeToTask.
      const stopWithClient = created && await this.#options.streams(run.beeId) ? caller : null
      return { id, release, responses: (signal) => this.#follow(id, run, taskId, contextId, legacy, signal, stopWithClient) }
    } finally {
      if (!streaming) release()
    }
  }

  /** SubscribeToTask (0.3 tasks/resubscribe): the caller's unfinished task, streamed; an ended one is read with GetTask. */
  async #subscribe (id: string | number, params: unknown, context: SendContext, legacy: boolean): Promise<A2aAnswer> {
    const found = await findTask(this.#options.runs, params, context)
    if ('error' in found) return failure(id, found.error)
    const { run, taskId } = found
    if (FINISHED.includes(run.status)) return failure(id, unsupported(`The task has ended (${stateOf(run)}): read it with GetTask.`))
    const release = this.#options.places.take()
    if (release === null) return failure(id, streamsFull())
    return { id, release, responses: (signal) => this.#follow(id, run, taskId, taskId, legacy, signal, null) }
  }

  async * #follow (id: string | number, run: StoredRun, taskId: string, contextId: string, legacy: boolean, signal: AbortSignal,
    stopWithClient: RunCaller | null): AsyncGenerator<unknown> {
    let ended = false
    try {
      for await (const update of taskUpdates(this.#options.events, run, taskId, contextId, signal)) yield success(id, legacy ? toLegacyUpdate(update) : update)
      ended = !signal.aborted
    } finally {
      if (!ended && stopWithClient !== null) await this.#options.runs.cancel(stopWithClient, run.id)
    }
  }
}
