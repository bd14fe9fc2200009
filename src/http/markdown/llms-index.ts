import type { RegisteredBee } from '../../core/registry.js'
import { WALLET_HEADER_NAME } from '../../core/schemas.js'
import { beePage } from './bee-page.js'
import { linkText, oneLine } from './inline.js'
import { priceText } from './price.js'

/** The Markdown view of a Bee, from its id. */
export const beePagePath = (id: string) => `/api/bees/${id}.md`

/** Active Bees by category, categories and Bees in a stable order, so that equal registries render equal bytes. */
function byCategory (bees: readonly RegisteredBee[]): Map<string, RegisteredBee[]> {
  const groups = new Map<string, RegisteredBee[]>()
  const active = bees.filter((bee) => bee.record.status === 'active')
  for (const bee of [...active].sort((a, b) => a.record.category.localeCompare(b.record.category, 'en') || (a.record.id < b.record.id ? -1 : 1))) {
    const group = groups.get(bee.record.category) ?? []
    group.push(bee)
    groups.set(bee.record.category, group)
  }
  return groups
}

/** A category's heading; "Optional" means "may be skipped" to an llms.txt reader, so a category of that name is renamed. */
function title (category: string): string {
  const text = oneLine(category.charAt(0).toUpperCase() + category.slice(1))
  return text === 'Optional' ? 'Category optional' : text
}

const sentence = (text: string) => /[.!?]$/.test(text) ? text : `${text}.`

function preamble (baseUrl: string): string {
  return [
    '# Apiary',
    '> A registry of Bees: capabilities (services, data, reasoning functions) with declared JSON input and output ' +
      'schemas, which agents discover, call and pay for per call. Every answer comes back in a Honey envelope ' +
      '`{beeId, timestamp, result, confidence, freshness}`.',
    `Call a Bee with \`POST ${baseUrl}/api/bees/{id}/execute\` and a JSON body that matches its input schema, or as the ` +
      `MCP tool named by its id at \`${baseUrl}/mcp\`. Free Bees need nothing more. Pay-per-use Bees charge a prepaid ` +
      `wallet whose token goes in the \`${WALLET_HEADER_NAME}\` header; without a funded one the answer is 402 with the ` +
      'price, and a call that fails is not charged. Each Bee\'s page below gives its price, its input and output ' +
      'fields, and a curl and an MCP example that work as printed.'
  ].join('\n\n')
}

/** /llms.txt (llmstxt.org): a title, a summary, how to call and pay, then one section of links per category. */
export function llmsIndex (bees: readonly RegisteredBee[], baseUrl: string): string {
  const sections = [preamble(baseUrl)]
  for (const [category, group] of byCategory(bees)) {
    const lines = group.map(({ record }) =>
      `- [${linkText(record.name)}](${baseUrl}${beePagePath(record.id)}): ${sentence(oneLine(record.description))} Price: ${priceText(record.pricing)}.`)
    sections.push(`## ${title(category)}\n\n${lines.join('\n')}`)
  }
  sections.push(optional(baseUrl))
  return sections.join('\n\n') + '\n'
}

/** Secondary links, which an llms.txt reader may skip when its context is short. */
function optional (baseUrl: string): string {
  return [
    '## Optional',
    '',
    `- [OpenAPI document](${baseUrl}/openapi/openapi.json): every operation, with each active Bee's own execute path and exact schemas (OpenAPI 3.0.3)`,
    `- [MCP endpoint](${baseUrl}/mcp): Model Context Protocol over Streamable HTTP (POST, stateless): every active Bee as a tool, and find_bees to search them`,
    `- [Wallets](${baseUrl}/docs#/wallets): the wallet endpoints; the operator issues and funds wallets, and \`GET /api/wallet\` with \`${WALLET_HEADER_NAME}\` shows a balance`,
    `- [Full text](${baseUrl}/llms-full.txt): llms.txt with every Bee's page inlined`
  ].join('\n')
}

/** /llms-full.txt: the same preamble, then every active Bee's Markdown view inlined under its category. */
export function llmsFull (bees: readonly RegisteredBee[], baseUrl: string): string {
  const sections = [preamble(baseUrl)]
  for (const [category, group] of byCategory(bees)) {
    sections.push(`## ${title(category)}`, ...group.map((bee) => beePage(bee, baseUrl, 3).trimEnd()))
  }
  sections.push(optional(baseUrl))
  return sections.join('\n\n') + '\n'
}
