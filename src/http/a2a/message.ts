import { randomUUID } from 'node:crypto'
import type { ValidateFunction } from 'ajv'
import type { Static } from 'typebox'
import type { ErrorCode } from '../../core/error-catalog.js'
import { bodyOf, toIssue, type ApiError } from '../../core/errors.js'
import type { ExecutionOutcome, ExecutionRequest } from '../../core/execution/execution.js'
import type { Logger } from '../../core/logger.js'
import { fromMicros } from '../../core/money.js'
import { bodyAjv } from '../../core/validation.js'
import { META, pinOf } from '../mcp/meta.js'
import { apiaryDetails, invalidParams, protocolError, RpcCode, type RpcError } from './errors.js'
import { JSON_MEDIA_TYPE, TaskState } from './protocol.js'
import { BeeCall, SendMessageParams, type Message, type Part, type Task } from './schemas.js'

/** What the HTTP request around a SendMessage carries for it. */
export interface SendContext {
  /** X-Registry-Wallet-Token of the HTTP request, if any. */
  walletToken: string | undefined
  /** Idempotency-Key of the HTTP request as received (the core checks it). */
  idempotencyKey: string | string[] | undefined
  requestId: string
  log: Logger
}

/** A message Apiary can run: the core's request, and the context the task will belong to. */
export type ReadCall = { ok: true, request: ExecutionRequest, contextId: string } | { ok: false, error: RpcError }

// Compiled by the first A2A message, not by every start that may never see one.
let validators: { params: ValidateFunction<SendMessageParams>, call: ValidateFunction<Static<typeof BeeCall>> } | undefined
const compiled = () => (validators ??= { params: bodyAjv.compile(SendMessageParams), call: bodyAjv.compile(BeeCall) })

const isData = (part: Part) => part.data !== undefined
const metadataValue = (params: SendMessageParams, key: string): unknown =>
  (params.metadata as Record<string, unknown> | undefined)?.[key] ?? (params.message.metadata as Record<string, unknown> | undefined)?.[key]

/**
 * The core's request for a SendMessage. The message's one data part names the Bee and its input: a
 * text part could name a Bee only by guessing at prose, and no built-in Bee runs without input. The
 * headers win over metadata, as in MCP: they are what a gateway in front of Apiary sees and may set.
 */
export function readCall (params: unknown, context: SendContext): ReadCall {
  const { params: validParams, call: validCall } = compiled()
  if (!validParams(params)) {
    const issues = (validParams.errors ?? []).map(toIssue)
    return { ok: false, error: invalidParams(`params is not a SendMessageRequest: ${issues.map((i) => `${i.field || 'params'} ${i.reason}`).join('; ')}.`, issues) }
  }
  const { message } = params
  if (message.taskId !== undefined && message.taskId !== '') {
    return {
      ok: false,
      error: protocolError(RpcCode.taskNotFound, 'TASK_NOT_FOUND',
        'A task takes no further messages here: every SendMessage starts a task of its own. Send the message without taskId (read a task with GetTask).',
        { taskId: message.taskId.slice(0, 200) })
    }
  }
  const data = message.parts.filter(isData)
  if (data.length === 0) {
    return {
      ok: false,
      error: protocolError(RpcCode.contentTypeNotSupported, 'CONTENT_TYPE_NOT_SUPPORTED',
        'Apiary reads one data part (application/json) holding {"beeId": "...", "input": {...}}; text and file parts are not read. ' +
        'The agent card lists the Bees as skills, with examples.')
    }
  }
  const [part] = data
  if (data.length > 1 || part === undefined) {
    return { ok: false, error: invalidParams('Send exactly one data part: one message runs one Bee.', [{ field: '/message/parts', reason: 'has more than one data part' }]) }
  }
  if (part.mediaType !== undefined && part.mediaType !== '' && part.mediaType !== JSON_MEDIA_TYPE) {
    return {
      ok: false,
      error: protocolError(RpcCode.contentTypeNotSupported, 'CONTENT_TYPE_NOT_SUPPORTED',
        `The data part must be ${JSON_MEDIA_TYPE}, not "${part.mediaType.slice(0, 100)}".`)
    }
  }
  if (!validCall(part.data)) {
    const issues = (validCall.errors ?? []).map(toIssue).map(({ field, reason }) => ({ field: `/message/parts/data${field}`, reason }))
    return { ok: false, error: invalidParams('The data part must be {"beeId": "<a Bee id>", "input": {...}}.', issues) }
  }
  const walletToken = metadataValue(params, META.walletToken)
  return {
    ok: true,
    contextId: message.contextId !== undefined && message.contextId !== '' ? message.contextId : randomUUID(),
    request: {
      beeId: part.data.beeId,
      input: part.data.input ?? {},
      walletToken: context.walletToken ?? (typeof walletToken === 'string' && walletToken.length > 0 ? walletToken : undefined),
      idempotencyKey: context.idempotencyKey ?? metadataValue(params, META.idempotencyKey),
      requestId: context.requestId,
      log: context.log,
      version: pinOf(metadataValue(params, META.beeVersion))
    }
  }
}

/** Refusals that mean there is no such skill to run (or no such push URL to use): invalid params, as MCP answers an unknown tool. */
const notCallable = new Set<ErrorCode>(['BEE_NOT_FOUND', 'BEE_INACTIVE', 'CALLBACK_URL_INVALID'])

/**
 * Which state a refused call ends in: a funded wallet is an authorization the client must obtain
 * (AUTH_REQUIRED, A2A §7.6); any other 4xx is Apiary declining the request as sent (REJECTED); a 5xx
 * is the attempt failing (FAILED).
 */
function stateOf (error: ApiError): TaskState {
  if (error.statusCode === 402) return TaskState.authRequired
  return error.statusCode < 500 ? TaskState.rejected : TaskState.failed
}

/** The agent's status message of a task that did not complete: the error's text for a person, and its body as data. */
export function errorMessage (error: ApiError, taskId: string, contextId: string): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: 'ROLE_AGENT',
    parts: [{ text: error.message }, { data: bodyOf(error), mediaType: JSON_MEDIA_TYPE }]
  }
}

/** The Honey as a task's one artifact. */
export const honeyArtifact = (honey: unknown): Task['artifacts'][number] =>
  ({ artifactId: 'honey', name: 'honey', parts: [{ data: honey, mediaType: JSON_MEDIA_TYPE }] })

/**
 * The core's outcome as the SendMessage result: a task already finished. Honey is its artifact's
 * data part (A2A §3.7: results are artifacts); a refusal is the status message, its text for a
 * person and the error body HTTP sends as its data part. An unknown Bee is an error, not a task.
 */
export function taskOf (outcome: ExecutionOutcome, contextId: string): { task: Task } | { error: RpcError } {
  const id = randomUUID()
  const timestamp = new Date().toISOString()
  if (!outcome.ok) {
    if (notCallable.has(outcome.error.code)) {
      return { error: { code: RpcCode.invalidParams, message: outcome.error.message, data: apiaryDetails(bodyOf(outcome.error)) } }
    }
    return { task: { id, contextId, status: { state: stateOf(outcome.error), message: errorMessage(outcome.error, id, contextId), timestamp }, artifacts: [] } }
  }
  const { honey, replayed, charge } = outcome
  return {
    task: {
      id,
      contextId,
      status: { state: TaskState.completed, timestamp },
      artifacts: [honeyArtifact(honey)],
      metadata: {
        [META.replayed]: replayed,
        ...(charge === null
          ? {}
          : { [META.charge]: { amount: fromMicros(charge.micros), balance: fromMicros(charge.balanceMicros), currency: charge.currency } })
      }
    }
  }
}
