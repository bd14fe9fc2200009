import { Type, type Static } from 'typebox'
import { AgentCard } from './schemas.js'

/** The A2A 0.3 agent card, as far as Apiary fills it: what a client that sends no A2A-Version reads. */

const Modes = Type.Array(Type.String(), { description: 'application/json.' })
const Security = Type.Array(Type.Record(Type.String(), Type.Array(Type.String()), { description: 'Scheme name: scopes.' }), { description: 'The wallet token, for a pay-per-use Bee.' })

export const LegacyAgentCard = Type.Object({
  protocolVersion: Type.String({ description: '0.3.0.' }),
  name: Type.String({ description: 'Apiary.' }),
  description: Type.String({ description: 'What the agent does.' }),
  url: Type.String({ description: 'The JSON-RPC endpoint.' }),
  preferredTransport: Type.String({ description: 'JSONRPC.' }),
  provider: AgentCard.properties.provider,
  version: Type.String({ description: 'The agent\'s version.' }),
  documentationUrl: Type.String({ description: 'The OpenAPI documentation.' }),
  capabilities: Type.Object({
    streaming: Type.Boolean({ description: 'false.' }),
    pushNotifications: Type.Boolean({ description: 'false.' })
  }, { description: 'Optional features.' }),
  supportsAuthenticatedExtendedCard: Type.Boolean({ description: 'false.' }),
  securitySchemes: Type.Record(Type.String(), Type.Object({
    type: Type.String({ description: 'apiKey.' }),
    in: Type.String({ description: 'header.' }),
    name: Type.String({ description: 'X-Registry-Wallet-Token.' }),
    description: Type.String({ description: 'What the key is.' })
  }, { description: 'An API key in a header.' }), { description: 'The wallet token.' }),
  defaultInputModes: Modes,
  defaultOutputModes: Modes,
  skills: Type.Array(Type.Object({
    id: Type.String({ description: 'The Bee id.' }),
    name: Type.String({ description: 'The Bee\'s name.' }),
    description: Type.String({ description: 'What the Bee does and costs.' }),
    tags: Type.Array(Type.String(), { description: 'Category and colony.' }),
    examples: Type.Array(Type.String(), { description: 'Data parts to send, as JSON text.' }),
    inputModes: Modes,
    outputModes: Modes,
    security: Type.Optional(Security)
  }, { description: 'One active Bee.' }), { description: 'Every active Bee.' }),
  supportedInterfaces: AgentCard.properties.supportedInterfaces
}, { description: 'The A2A 0.3 agent card, with the 1.0 supportedInterfaces.' })
export type LegacyAgentCard = Static<typeof LegacyAgentCard>

const LegacyPart = Type.Object({
  kind: Type.String({ enum: ['text', 'data'], description: 'text or data.' }),
  text: Type.Optional(Type.String({ description: 'Text.' })),
  data: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Honey or an error body.' }))
}, { description: 'A part.' })

export const LegacyTask = Type.Object({
  kind: Type.String({ enum: ['task'], description: 'task.' }),
  id: Type.String({ description: 'A new task id.' }),
  contextId: Type.String({ description: 'The request message\'s contextId, or a new one.' }),
  status: Type.Object({
    state: Type.String({
      enum: ['completed', 'auth-required', 'rejected', 'failed'],
      description: 'As TASK_STATE_* on 1.0.'
    }),
    message: Type.Optional(Type.Object({
      kind: Type.String({ enum: ['message'], description: 'message.' }),
      messageId: Type.String({ description: 'Message id.' }),
      contextId: Type.Optional(Type.String({ description: 'Context id.' })),
      taskId: Type.Optional(Type.String({ description: 'Task id.' })),
      role: Type.String({ enum: ['agent'], description: 'agent.' }),
      parts: Type.Array(LegacyPart, { description: 'The error as text and as data.' })
    }, { description: 'Why it did not complete.' })),
    timestamp: Type.String({ description: 'When (ISO 8601).' })
  }, { description: 'Where it ended.' }),
  artifacts: Type.Array(Type.Object({
    artifactId: Type.String({ description: 'honey.' }),
    name: Type.String({ description: 'Always "honey".' }),
    parts: Type.Array(LegacyPart, { description: 'The Honey.' })
  }, { description: 'An output.' }), { description: 'The Honey, when completed.' }),
  metadata: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'As on 1.0.' }))
}, { description: 'The A2A 0.3 message/send result: the finished task.' })
