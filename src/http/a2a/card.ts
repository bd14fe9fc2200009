import { WALLET_HEADER_NAME, type BeeRecord } from '../../core/schemas.js'
import { A2A_PATH, A2A_VERSION, JSON_MEDIA_TYPE, LEGACY_A2A_VERSION, WALLET_SCHEME } from './protocol.js'
import type { AgentCard } from './schemas.js'

/** At most this many examples per skill: the card is read whole by every client. */
const MAX_EXAMPLES = 3

const walletRequirement = [{ schemes: { [WALLET_SCHEME]: { list: [] } } }]

/**
 * The examples of a Bee's inputSchema (JSON Schema `examples`, or OpenAPI's `example`) as the data
 * parts to send, in JSON text as A2A's examples are strings. None when the schema gives none: an
 * invented input could be refused.
 */
function examplesOf (record: BeeRecord): string[] {
  const schema = record.inputSchema as { examples?: unknown, example?: unknown }
  const inputs = Array.isArray(schema.examples) ? schema.examples : schema.example === undefined ? [] : [schema.example]
  return inputs.slice(0, MAX_EXAMPLES).map((input) => JSON.stringify({ beeId: record.id, input }))
}

const isPaid = (record: BeeRecord) => record.pricing.type !== 'free'

function priceOf (record: BeeRecord): string {
  const { costPerCall, currency } = record.pricing
  return isPaid(record)
    ? `Costs ${costPerCall} ${currency} a call, paid from the wallet whose token is sent in ${WALLET_HEADER_NAME}.`
    : 'Free.'
}

function skillOf (record: BeeRecord): AgentCard['skills'][number] {
  const { id, name, description, category, colony } = record
  return {
    id,
    name,
    description: `${description} ${priceOf(record)} Send a data part {"beeId": "${id}", "input": {...}} with the input GET /api/bees/${id} describes.`,
    tags: [...new Set([category, colony])],
    examples: examplesOf(record),
    inputModes: [JSON_MEDIA_TYPE],
    outputModes: [JSON_MEDIA_TYPE],
    securityRequirements: isPaid(record) ? walletRequirement : []
  }
}

/**
 * The A2A v1.0 agent card of this service at `origin`, with `bees` (a bounded selection: the card is read whole)
 * as its skills; any Bee of the catalog can be sent to. It advertises only what the endpoint does: the
 * JSON-RPC binding of 1.0 and of 0.3, with streaming and push notifications, without an extended card.
 */
export function agentCard (origin: string, bees: readonly BeeRecord[]): AgentCard {
  return {
    name: 'Apiary',
    description: 'A registry of Bees: capabilities with declared JSON input and output schemas, each a skill here. ' +
      'Send a message with one data part {"beeId": "<skill id>", "input": {...}}; the answer is a task whose ' +
      'artifact holds the Honey (the result with its confidence and freshness); an async Bee\'s task may still be working: read it ' +
      'with GetTask (returnImmediately answers it at once), follow it with SubscribeToTask, or have it pushed to you ' +
      '(a push notification config). SendStreamingMessage streams a stream Bee\'s events as artifact updates. Pay-per-use Bees charge the wallet ' +
      `whose token is sent in ${WALLET_HEADER_NAME}. The skills listed are the built-in Bees and the most reliable published ones; ` +
      `every Bee of the catalog is a skill: search it at ${origin}/api/bees?q=... (or MCP find_bees), and send its id.`,
    // One endpoint for both: A2A-Version tells them apart, and 1.0, listed first, is preferred.
    supportedInterfaces: [A2A_VERSION, LEGACY_A2A_VERSION].map((protocolVersion) => ({ url: `${origin}${A2A_PATH}`, protocolBinding: 'JSONRPC', protocolVersion })),
    provider: { organization: 'Apiary', url: origin },
    version: '1.0.0',
    documentationUrl: `${origin}/docs`,
    capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: false },
    securitySchemes: {
      [WALLET_SCHEME]: {
        apiKeySecurityScheme: {
          description: 'Token of a funded wallet; pay-per-use Bees charge it per call.',
          location: 'header',
          name: WALLET_HEADER_NAME
        }
      }
    },
    securityRequirements: [],
    defaultInputModes: [JSON_MEDIA_TYPE],
    defaultOutputModes: [JSON_MEDIA_TYPE],
    skills: bees.filter((record) => record.status === 'active').map(skillOf)
  }
}
