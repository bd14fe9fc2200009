/** The A2A protocol version this door speaks (A2A-Version, and the card's protocolVersion). */
export const A2A_VERSION = '1.0'

/**
 * The earlier version served beside it, on the same endpoint: what a request without A2A-Version
 * speaks (A2A 1.0 §3.6.2), as 0.3 clients send none.
 */
export const LEGACY_A2A_VERSION = '0.3'

/** Whether A2A-Version asks for 0.3: absent or empty (0.3 clients send none), 0.3 or a 0.3.x patch. */
export const isLegacyVersion = (version: string | undefined): boolean =>
  version === undefined || /^\s*(0\.3(\.\d+)?)?\s*$/.test(version)

/** Where the JSON-RPC binding is served. */
export const A2A_PATH = '/a2a'

/** Where agents look for the card (A2A §8.2, RFC 8615). */
export const AGENT_CARD_PATH = '/.well-known/agent-card.json'

/** The media type of the one part Apiary reads and writes: a JSON value. */
export const JSON_MEDIA_TYPE = 'application/json'

/** The card's key for the wallet credential in securitySchemes and securityRequirements. */
export const WALLET_SCHEME = 'walletToken'

/** Task states as ProtoJSON spells them (A2A §5.5): those a call ends in, and an async Bee's run goes through. */
export const TaskState = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  canceled: 'TASK_STATE_CANCELED',
  completed: 'TASK_STATE_COMPLETED',
  failed: 'TASK_STATE_FAILED',
  rejected: 'TASK_STATE_REJECTED',
  authRequired: 'TASK_STATE_AUTH_REQUIRED'
} as const
export type TaskState = typeof TaskState[keyof typeof TaskState]
