import { LEGACY_A2A_VERSION } from './protocol.js'
import type { LegacyAgentCard } from './legacy-schemas.js'
import type { AgentCard } from './schemas.js'

type Requirements = AgentCard['securityRequirements']

/** 1.0's `{schemes: {name: {list}}}` as 0.3's `{name: scopes}`. */
const toLegacySecurity = (requirements: Requirements) =>
  requirements.map(({ schemes }) => Object.fromEntries(Object.entries(schemes).map(([name, { list }]) => [name, list])))

/**
 * The 1.0 card as a 0.3 client reads it: the 0.3 interface as `url` and `preferredTransport`,
 * security in OpenAPI's form, and 1.0's supportedInterfaces kept (as the A2A SDK's own compatibility
 * layer does), so that a 1.0 reader that sent no A2A-Version still finds its interface.
 */
export function legacyAgentCard (card: AgentCard): LegacyAgentCard & Record<string, unknown> {
  const legacy = card.supportedInterfaces.find(({ protocolVersion }) => protocolVersion === LEGACY_A2A_VERSION)
  if (legacy === undefined) throw new Error('the agent card lists no A2A 0.3 interface')
  return {
    protocolVersion: `${LEGACY_A2A_VERSION}.0`,
    name: card.name,
    description: card.description,
    url: legacy.url,
    preferredTransport: legacy.protocolBinding,
    provider: card.provider,
    version: card.version,
    documentationUrl: card.documentationUrl,
    capabilities: { streaming: card.capabilities.streaming, pushNotifications: card.capabilities.pushNotifications },
    supportsAuthenticatedExtendedCard: card.capabilities.extendedAgentCard,
    securitySchemes: Object.fromEntries(Object.entries(card.securitySchemes).map(([name, { apiKeySecurityScheme: key }]) =>
      [name, { type: 'apiKey', in: key.location, name: key.name, description: key.description }])),
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map(({ securityRequirements, ...skill }) =>
      ({ ...skill, ...(securityRequirements.length === 0 ? {} : { security: toLegacySecurity(securityRequirements) }) })),
    supportedInterfaces: card.supportedInterfaces
  }
}
