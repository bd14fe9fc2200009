import { Type, type Static } from 'typebox'
import { AgentCard } from './schemas.js'

/**
 * A2A 0.3 shapes, as far as they differ from 1.0's: what a client that sends no A2A-Version reads.
 * The rest of each is the 1.0 object's content in 0.3's spelling (legacy-card.ts, legacy.ts).
 */

const open = (description: string) => Type.Object({}, { additionalProperties: true, description })

export const LegacyAgentCard = Type.Object({
  protocolVersion: Type.String({ description: '0.3.0.' }),
  url: Type.String({ description: 'The JSON-RPC endpoint.' }),
  preferredTransport: Type.String({ description: 'JSONRPC.' }),
  supportsAuthenticatedExtendedCard: Type.Boolean({ description: 'false.' }),
  securitySchemes: Type.Record(Type.String(), open('An API key in a header.'), { description: 'The wallet token.' }),
  skills: Type.Array(open('One active Bee; `security` when paid.'), { description: 'Every active Bee.' }),
  supportedInterfaces: AgentCard.properties.supportedInterfaces
}, { additionalProperties: true, description: 'The A2A 0.3 agent card (other fields as on 1.0).' })
export type LegacyAgentCard = Static<typeof LegacyAgentCard>

export const LegacyTask = Type.Object({
  kind: Type.String({ enum: ['task'], description: 'task.' }),
  id: Type.String({ description: 'The task id.' }),
  contextId: Type.String({ description: 'The message\'s context, or a new one.' }),
  status: Type.Object({
    state: Type.String({ enum: ['submitted', 'working', 'completed', 'canceled', 'auth-required', 'rejected', 'failed'], description: 'As TASK_STATE_* on 1.0.' }),
    message: Type.Optional(open('Why not completed: the error as text and data parts.')),
    timestamp: Type.String({ description: 'When (ISO 8601).' })
  }, { description: 'Where it is.' }),
  artifacts: Type.Array(open('The Honey as a data part.'), { description: 'The Honey, when completed.' }),
  metadata: Type.Optional(open('As on 1.0.'))
}, { description: 'The A2A 0.3 message/send, tasks/get and tasks/cancel result: the task.' })
