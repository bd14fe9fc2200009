import type { ExecutionOutcome, ExecutionRequest } from '../../core/execution/execution.js'
import type { RunStartOutcome } from '../../core/execution/executor.js'
import type { RunService } from '../../core/runs/service.js'
import { taskIdOf } from '../../core/runs/task-ids.js'
import { protocolError, RpcCode, type RpcError } from './errors.js'
import { failure, readEnvelope, success } from './json-rpc.js'
import { readCall, taskOf, type SendContext } from './message.js'
import { fromLegacyParams, LEGACY_METHODS, toLegacyTask } from './legacy.js'
import { A2A_VERSION, isLegacyVersion, LEGACY_A2A_VERSION } from './protocol.js'
import { answerTask, runTaskOf } from './tasks.js'

export interface A2aEndpointOptions {
  /** The pipeline, an async Bee's call becoming a run. */
  executeOrStart: (request: ExecutionRequest) => Promise<ExecutionOutcome | RunStartOutcome>
  /** Runs, awaited, read and cancelled as tasks. */
  runs: Pick<RunService, 'wait' | 'get' | 'cancel'>
  /** RUN_WAIT_SECONDS: how long a blocking SendMessage waits for an async Bee's run, as HTTP's Prefer: wait does. */
  waitSeconds: number
}

const unsupported = (what: string): RpcError => protocolError(RpcCode.unsupportedOperation, 'UNSUPPORTED_OPERATION',
  `${what} SendMessage answers with the task; an async Bee's task is read with GetTask.`)

const noPush = protocolError(RpcCode.pushNotificationNotSupported, 'PUSH_NOTIFICATION_NOT_SUPPORTED',
  'Push notifications are not supported (capabilities.pushNotifications is false): SendMessage answers with the finished task.')

/**
 * The A2A v1.0 methods Apiary does not serve, and the error the spec asks for each (§3.3.4): the card
 * declares no streaming, no push notifications and no extended card.
 */
const refusals = new Map<string, RpcError>(Object.entries({
  SendStreamingMessage: unsupported('Streaming is not supported (capabilities.streaming is false): use SendMessage.'),
  SubscribeToTask: unsupported('Streaming is not supported (capabilities.streaming is false).'),
  ListTasks: unsupported('ListTasks is not supported.'),
  GetExtendedAgentCard: unsupported('There is no extended agent card (capabilities.extendedAgentCard is false).'),
  CreateTaskPushNotificationConfig: noPush,
  GetTaskPushNotificationConfig: noPush,
  ListTaskPushNotificationConfigs: noPush,
  DeleteTaskPushNotificationConfig: noPush
}))

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

/** The methods served, by their 1.0 names. */
const SERVED = new Set(['SendMessage', 'GetTask', 'CancelTask'])

const configurationOf = (params: unknown): Record<string, unknown> | undefined => {
  const configuration = (params as { configuration?: unknown } | null)?.configuration
  return typeof configuration === 'object' && configuration !== null ? configuration as Record<string, unknown> : undefined
}

/** A 1.0 method name sent without A2A-Version is most likely a 1.0 client that forgot the header. */
function legacyMethodNotFound (method: string): RpcError {
  return methodNotFound(method, refusals.has(method) || SERVED.has(method)
    ? `A request without A2A-Version is A2A ${LEGACY_A2A_VERSION}, whose method is message/send: send A2A-Version: ${A2A_VERSION} to use ${method.slice(0, 100)}.`
    : `A2A ${LEGACY_A2A_VERSION} sends messages with message/send.`)
}

/** The JSON-RPC binding of A2A over the execution core: one request in, one response out. */
export class A2aEndpoint {
  readonly #options: A2aEndpointOptions

  constructor (options: A2aEndpointOptions) {
    this.#options = options
  }

  async answer (body: unknown, version: string | undefined, context: SendContext) {
    const envelope = readEnvelope(body)
    if (!envelope.ok) return failure(envelope.id, envelope.error)
    const { id, method, params } = envelope
    if (isLegacyVersion(version)) {
      // 0.3: the same methods under other names, and the same answers in 0.3's shapes.
      const modern = LEGACY_METHODS.get(method)
      if (modern === undefined) return failure(id, legacyMethodNotFound(method))
      if (!SERVED.has(modern)) return failure(id, refusals.get(modern) as RpcError)
      // 0.3's send blocks unless configuration.blocking is false.
      const answer = modern === 'SendMessage'
        ? await this.#send(fromLegacyParams(params), context, configurationOf(params)?.blocking === false)
        : await answerTask(this.#options.runs, modern as 'GetTask' | 'CancelTask', params, context)
      return 'task' in answer ? success(id, toLegacyTask(answer.task)) : failure(id, answer.error)
    }
    if (version?.trim() !== A2A_VERSION) return failure(id, versionError(version ?? ''))
    if (method === 'GetTask' || method === 'CancelTask') {
      const answer = await answerTask(this.#options.runs, method, params, context)
      return 'task' in answer ? success(id, answer.task) : failure(id, answer.error)
    }
    if (method !== 'SendMessage') {
      return failure(id, refusals.get(method) ?? methodNotFound(method, `A2A ${A2A_VERSION} sends messages with SendMessage.`))
    }
    const answer = await this.#send(params, context, configurationOf(params)?.returnImmediately === true)
    return 'task' in answer ? success(id, answer) : failure(id, answer.error)
  }

  /**
   * A SendMessageRequest (1.0's shape) run through the execution core: the finished task, or why there is none. An
   * async Bee's call is a run: its task is answered at once when the client asked not to wait (SUBMITTED), else once
   * the run ended or RUN_WAIT_SECONDS passed, as HTTP's Prefer: wait (then WORKING, to be read with GetTask).
   */
  async #send (params: unknown, context: SendContext, immediately: boolean) {
    const call = readCall(params, context)
    if (!call.ok) return { error: call.error }
    const outcome = await this.#options.executeOrStart(call.request)
    // Answered as soon as the core has captured: nothing is awaited between the two.
    if (!('run' in outcome)) return taskOf(outcome, call.contextId)
    const { run, runKey } = outcome.run
    const current = immediately ? run : await this.#options.runs.wait(run, this.#options.waitSeconds)
    return { task: runTaskOf(current, taskIdOf(run, runKey), call.contextId) }
  }
}
