import { Type, type Static } from 'typebox'

/** A2A v1.0 objects as their ProtoJSON form puts them on the wire (camelCase, enums by name), as far as Apiary uses them. */

const Metadata = Type.Object({}, { additionalProperties: true, description: 'Free key-value metadata.' })

export const Part = Type.Object({
  text: Type.Optional(Type.String({ description: 'Text content (Apiary answers with it alongside data; it does not read it).' })),
  raw: Type.Optional(Type.String({ description: 'File bytes in base64 (not read by Apiary).' })),
  url: Type.Optional(Type.String({ description: 'A URL to file content (not read by Apiary).' })),
  data: Type.Optional(Type.Unknown({ description: 'A JSON value: `{beeId, input}` in a request, Honey or an error body in an answer.' })),
  mediaType: Type.Optional(Type.String({ description: 'Media type of the content; application/json for data.' })),
  filename: Type.Optional(Type.String({ description: 'File name of a raw or url part.' })),
  metadata: Type.Optional(Metadata)
}, { title: 'A2aPart', description: 'One piece of content; exactly one of text, raw, url or data is set.' })
export type Part = Static<typeof Part>

export const Message = Type.Object({
  messageId: Type.String({ minLength: 1, description: 'Identifier the sender gives the message.' }),
  contextId: Type.Optional(Type.String({ description: 'The conversation the message belongs to.' })),
  taskId: Type.Optional(Type.String({ description: 'The task the message continues; a task takes no further messages, so a request must not set it.' })),
  role: Type.String({ enum: ['ROLE_USER', 'ROLE_AGENT'], description: 'Who sent it: ROLE_USER in a request, ROLE_AGENT in an answer.' }),
  parts: Type.Array(Part, { minItems: 1, description: 'The content.' }),
  metadata: Type.Optional(Metadata)
}, { description: 'One message between client and agent.' })
export type Message = Static<typeof Message>

export const SendMessageParams = Type.Object({
  tenant: Type.Optional(Type.String({ description: 'Tenant; Apiary declares none.' })),
  message: Message,
  configuration: Type.Optional(Type.Object({}, {
    additionalProperties: true,
    description: 'Send configuration; returnImmediately: true answers an async Bee\'s task at once (SUBMITTED); taskPushNotificationConfig pushes it once ended.'
  })),
  metadata: Type.Optional(Type.Object({}, {
    additionalProperties: true,
    description: '"ai.apiary/walletToken", "ai.apiary/idempotencyKey" and "ai.apiary/beeVersion" stand in for the headers when a client cannot set them.'
  }))
}, { description: 'SendMessageRequest: a message whose data part is `{beeId, input}`.' })
export type SendMessageParams = Static<typeof SendMessageParams>

export const BeeCall = Type.Object({
  beeId: Type.String({ minLength: 1, description: 'The id of the Bee (the skill) to run.' }),
  input: Type.Optional(Type.Unknown({ description: 'The input, as the Bee\'s inputSchema describes it; {} when absent.' }))
}, { description: 'The data part of a request: which Bee runs on what.' })

export const Task = Type.Object({
  id: Type.String({ description: 'The task id, new for every message; an async Bee\'s task is read by it with GetTask.' }),
  contextId: Type.String({ description: 'The request message\'s contextId, or a new one.' }),
  status: Type.Object({
    state: Type.String({
      enum: ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED', 'TASK_STATE_CANCELED', 'TASK_STATE_AUTH_REQUIRED', 'TASK_STATE_REJECTED', 'TASK_STATE_FAILED'],
      description: 'COMPLETED with Honey; AUTH_REQUIRED when a funded wallet is needed (402); REJECTED when the request was refused (4xx); ' +
        'FAILED when running it failed (5xx). An async Bee\'s run: SUBMITTED, WORKING, then COMPLETED, FAILED or CANCELED.'
    }),
    message: Type.Optional(Message),
    timestamp: Type.String({ description: 'When the task reached this state (ISO 8601, UTC).' })
  }, { description: 'Where the task is; its message carries the error body when it did not complete.' }),
  artifacts: Type.Array(Type.Object({
    artifactId: Type.String({ description: 'Identifier of the artifact within the task.' }),
    name: Type.String({ description: 'Always "honey".' }),
    parts: Type.Array(Part, { description: 'One data part: the Honey envelope.' })
  }, { description: 'An output of the task.' }), { description: 'The Honey, when the task completed; empty otherwise.' }),
  metadata: Type.Optional(Type.Object({}, {
    additionalProperties: true,
    description: '"ai.apiary/replayed" (an idempotent replay) and, for a paid call, "ai.apiary/charge" `{amount, balance, currency}`.'
  }))
}, { description: 'The task a message started: finished, or an async Bee\'s run.' })
export type Task = Static<typeof Task>

const StringList = Type.Object({ list: Type.Array(Type.String(), { description: 'Scopes (none for an API key).' }) }, { description: 'Scopes of one scheme.' })
const SecurityRequirement = Type.Object({
  schemes: Type.Record(Type.String(), StringList, { description: 'Scheme names from securitySchemes, with their scopes.' })
}, { title: 'A2aSecurityRequirement', description: 'Schemes that must all be satisfied.' })

export const AgentSkill = Type.Object({
  id: Type.String({ description: 'The Bee id: the beeId of the data part.' }),
  name: Type.String({ description: 'The Bee\'s name.' }),
  description: Type.String({ description: 'What the Bee does, its price, and the input it takes.' }),
  tags: Type.Array(Type.String(), { description: 'The Bee\'s category and colony.' }),
  examples: Type.Array(Type.String(), { description: 'Data parts to send, as JSON text, from the examples of the Bee\'s inputSchema.' }),
  inputModes: Type.Array(Type.String(), { description: 'Always application/json.' }),
  outputModes: Type.Array(Type.String(), { description: 'Always application/json.' }),
  securityRequirements: Type.Array(SecurityRequirement, { description: 'The wallet token, for a pay-per-use Bee; none for a free one.' })
}, { description: 'One active Bee.' })

export const AgentCard = Type.Object({
  name: Type.String({ description: 'Apiary.' }),
  description: Type.String({ description: 'What the agent does and how to call it.' }),
  supportedInterfaces: Type.Array(Type.Object({
    url: Type.String({ description: 'The JSON-RPC endpoint.' }),
    protocolBinding: Type.String({ description: 'JSONRPC.' }),
    protocolVersion: Type.String({ description: 'The A2A version served there.' })
  }, { title: 'A2aAgentInterface', description: 'An interface.' }), { description: 'Where and how to talk to the agent.' }),
  provider: Type.Object({
    organization: Type.String({ description: 'Who runs the agent.' }),
    url: Type.String({ description: 'Their site.' })
  }, { description: 'The service provider.' }),
  version: Type.String({ description: 'The agent\'s version.' }),
  documentationUrl: Type.String({ description: 'The OpenAPI documentation.' }),
  capabilities: Type.Object({
    streaming: Type.Boolean({ description: 'true: SendStreamingMessage and SubscribeToTask.' }),
    pushNotifications: Type.Boolean({ description: 'true: push notification configs.' }),
    extendedAgentCard: Type.Boolean({ description: 'false: this is the whole card.' })
  }, { description: 'Optional features.' }),
  securitySchemes: Type.Record(Type.String(), Type.Object({
    apiKeySecurityScheme: Type.Object({
      description: Type.String({ description: 'What the key is.' }),
      location: Type.String({ description: 'header.' }),
      name: Type.String({ description: 'X-Registry-Wallet-Token.' })
    }, { description: 'An API key.' })
  }, { description: 'A security scheme.' }), { description: 'The wallet token.' }),
  securityRequirements: Type.Array(SecurityRequirement, { description: 'Empty: free Bees need nothing; each paid skill names the wallet.' }),
  defaultInputModes: Type.Array(Type.String(), { description: 'application/json.' }),
  defaultOutputModes: Type.Array(Type.String(), { description: 'application/json.' }),
  skills: Type.Array(AgentSkill, { description: 'Every active Bee, in id order.' })
}, { description: 'The A2A v1.0 agent card.' })
export type AgentCard = Static<typeof AgentCard>

/** A2A 1.0's streamed and pushed objects, as Apiary writes them (not validated: the endpoint builds them). */
export type Artifact = Task['artifacts'][number]

export interface TaskStatusUpdateEvent {
  taskId: string
  contextId: string
  status: Task['status']
  metadata?: Record<string, unknown>
}

export interface TaskArtifactUpdateEvent {
  taskId: string
  contextId: string
  artifact: Artifact
  append: boolean
  lastChunk: boolean
}

/** One event of a stream (A2A §3.2.3): exactly one of its fields. */
export type StreamResponse = { task: Task } | { statusUpdate: TaskStatusUpdateEvent } | { artifactUpdate: TaskArtifactUpdateEvent }

/** A push notification config as A2A 1.0 writes it (TaskPushNotificationConfig). */
export interface PushConfig {
  taskId: string
  id: string
  url: string
  token?: string
  authentication?: { scheme: string, credentials: string }
}
