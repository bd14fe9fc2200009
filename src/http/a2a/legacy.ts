import type { Message, Part, Task } from './schemas.js'
import { TaskState } from './protocol.js'

/**
 * A2A 0.3 on the wire, translated to and from the 1.0 shapes the endpoint works in, so both versions
 * run through one reading of the message and one pipeline. 0.3 names its methods with slashes, tags
 * each object with `kind`, and spells roles and states in lower case.
 */

/** The 0.3 method names, by the 1.0 method each one is. */
export const LEGACY_METHODS = new Map(Object.entries({
  'message/send': 'SendMessage',
  'message/stream': 'SendStreamingMessage',
  'tasks/get': 'GetTask',
  'tasks/cancel': 'CancelTask',
  'tasks/resubscribe': 'SubscribeToTask',
  'tasks/pushNotificationConfig/set': 'CreateTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/get': 'GetTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/list': 'ListTaskPushNotificationConfigs',
  'tasks/pushNotificationConfig/delete': 'DeleteTaskPushNotificationConfig',
  'agent/getAuthenticatedExtendedCard': 'GetExtendedAgentCard'
}))

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const ROLES: Record<string, string> = { user: 'ROLE_USER', agent: 'ROLE_AGENT' }

const STATES: Record<TaskState, string> = {
  [TaskState.submitted]: 'submitted',
  [TaskState.working]: 'working',
  [TaskState.canceled]: 'canceled',
  [TaskState.completed]: 'completed',
  [TaskState.failed]: 'failed',
  [TaskState.rejected]: 'rejected',
  [TaskState.authRequired]: 'auth-required'
}

/** A 0.3 part without its `kind`: a text or data part then reads as 1.0's; a file part is not read either way. */
function fromLegacyPart (part: unknown): unknown {
  if (!isObject(part)) return part
  const { kind: _kind, ...rest } = part
  return rest
}

/**
 * The params of a 0.3 `message/send` in the shape of a 1.0 SendMessageRequest. Anything that is not
 * a 0.3 message is left as it is, for the 1.0 reading to refuse with the field it lacks.
 */
export function fromLegacyParams (params: unknown): unknown {
  if (!isObject(params) || !isObject(params.message)) return params
  const { kind: _kind, role, parts, ...message } = params.message
  return {
    ...params,
    message: {
      ...message,
      role: typeof role === 'string' ? (ROLES[role] ?? role) : role,
      parts: Array.isArray(parts) ? parts.map(fromLegacyPart) : parts
    }
  }
}

/** A part of an answer (text or data, the only ones Apiary writes) as 0.3 tags it. */
function toLegacyPart (part: Part) {
  return part.data === undefined
    ? { kind: 'text', text: part.text ?? '' }
    : { kind: 'data', data: part.data }
}

function toLegacyMessage (message: Message) {
  return {
    kind: 'message',
    messageId: message.messageId,
    contextId: message.contextId,
    taskId: message.taskId,
    role: message.role === 'ROLE_USER' ? 'user' : 'agent',
    parts: message.parts.map(toLegacyPart)
  }
}

/** The finished task as a 0.3 `message/send` result: the Task itself, tagged, not wrapped in `{task}`. */
export function toLegacyTask (task: Task) {
  const { message, state, timestamp } = task.status
  return {
    kind: 'task',
    id: task.id,
    contextId: task.contextId,
    status: { state: STATES[state as TaskState], ...(message === undefined ? {} : { message: toLegacyMessage(message) }), timestamp },
    artifacts: task.artifacts.map(({ artifactId, name, parts }) => ({ artifactId, name, parts: parts.map(toLegacyPart) })),
    ...(task.metadata === undefined ? {} : { metadata: task.metadata })
  }
}
