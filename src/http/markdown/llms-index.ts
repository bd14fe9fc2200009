import { beeDocumentPath } from '../../core/publishing/openapi-paths.js'
import type { RegisteredBee } from '../../core/registry.js'
import { WALLET_HEADER_NAME, type BeeRecord } from '../../core/schemas.js'
import { beePage } from './bee-page.js'
import { linkText, oneLine } from './inline.js'
import { priceText } from './price.js'

/** The Markdown view of a Bee, from its id. */
export const beePagePath = (id: string) => `/api/bees/${id}.md`

/** The paged index of every active Bee; a page's cursor is the nextCursor of discovery in id order. */
export const LLMS_PAGES_PATH = '/llms/bees.txt'

const pageUrl = (baseUrl: string, cursor: string | null) =>
  `${baseUrl}${LLMS_PAGES_PATH}${cursor === null ? '' : `?cursor=${encodeURIComponent(cursor)}`}`

const sentence = (text: string) => /[.!?]$/.test(text) ? text : `${text}.`

/** One Bee as an llms.txt link line: its page, what it does, its price, and its own OpenAPI document. */
const beeLine = (record: BeeRecord, baseUrl: string) =>
  `- [${linkText(record.name)}](${baseUrl}${beePagePath(record.id)}): ${sentence(oneLine(record.description))} ` +
  `Price: ${priceText(record.pricing)}. OpenAPI: ${baseUrl}${beeDocumentPath(record.id)}`

function preamble (baseUrl: string): string {
  return [
    '# Apiary',
    '> A registry of Bees: capabilities (services, data, reasoning functions) with declared JSON input and output ' +
      'schemas, which agents discover, call and pay for per call. Every answer comes back in a Honey envelope ' +
      '`{beeId, timestamp, result, confidence, freshness}`.',
    `Call a Bee with \`POST ${baseUrl}/api/bees/{id}/execute\` and a JSON body that matches its input schema, or as the ` +
      `MCP tool named by its id at \`${baseUrl}/mcp\`. Free Bees need nothing more. Pay-per-use Bees charge a prepaid ` +
      `wallet whose token goes in the \`${WALLET_HEADER_NAME}\` header; without a funded one the answer is 402 with the ` +
      'price, and a call that fails is not charged. Each Bee\'s page gives its price, its input and output ' +
      'fields, and a curl and an MCP example that work as printed; its OpenAPI document gives a client generator a typed call.'
  ].join('\n\n')
}

/** Where the rest of the catalog is: the paged index and the search. */
function everyBee (baseUrl: string, pageSize: number): string {
  return [
    '## Every Bee',
    '',
    `- [Index of every active Bee](${pageUrl(baseUrl, null)}): in id order, ${pageSize} a page, each page linking to the next`,
    `- [Search](${baseUrl}/api/bees?q=weather): \`GET /api/bees?q=…\` with filters (category, colony, pricing) as JSON; ` +
      '`find_bees` over MCP'
  ].join('\n')
}

/**
 * /llms.txt (llmstxt.org): a title, a summary, how to call and pay, a bounded selection of Bees (the most reliable
 * first, as discovery ranks them), where every other Bee is listed, then the secondary links.
 */
export function llmsIndex (selection: readonly BeeRecord[], baseUrl: string, pageSize: number): string {
  const sections = [preamble(baseUrl)]
  if (selection.length > 0) sections.push(`## Most reliable Bees\n\n${selection.map((record) => beeLine(record, baseUrl)).join('\n')}`)
  sections.push(everyBee(baseUrl, pageSize), optional(baseUrl))
  return sections.join('\n\n') + '\n'
}

/** One page of the index of every active Bee, linking to the next page while there is one. */
export function llmsPage (records: readonly BeeRecord[], nextCursor: string | null, baseUrl: string): string {
  const sections = [
    '# Apiary: every active Bee',
    `> A page of the index of every active Bee, in id order. The overview, how to call and pay, is ${baseUrl}/llms.txt.`,
    `## Bees\n\n${records.map((record) => beeLine(record, baseUrl)).join('\n')}`
  ]
  if (nextCursor !== null) sections.push(`## Next page\n\n- [The Bees after ${linkText(records.at(-1)?.id ?? '')}](${pageUrl(baseUrl, nextCursor)})`)
  return sections.join('\n\n') + '\n'
}

/** Secondary links, which an llms.txt reader may skip when its context is short. */
function optional (baseUrl: string): string {
  return [
    '## Optional',
    '',
    `- [OpenAPI document](${baseUrl}/openapi/openapi.json): the service's operations, the built-in Bees' execute paths and the generic one (OpenAPI 3.0.3); each Bee's own is linked with it`,
    `- [MCP endpoint](${baseUrl}/mcp): Model Context Protocol over Streamable HTTP (POST, stateless): every active Bee as a tool, and find_bees to search them`,
    `- [Wallets](${baseUrl}/docs#/wallets): the wallet endpoints; the operator issues and funds wallets, and \`GET /api/wallet\` with \`${WALLET_HEADER_NAME}\` shows a balance`,
    `- [Full text](${baseUrl}/llms-full.txt): llms.txt with the selected Bees' pages inlined`
  ].join('\n')
}

/** /llms-full.txt: the same preamble, then the selected Bees' Markdown views inlined, then where every other Bee is. */
export function llmsFull (selection: readonly RegisteredBee[], baseUrl: string, pageSize: number): string {
  const sections = [preamble(baseUrl)]
  if (selection.length > 0) sections.push('## Most reliable Bees', ...selection.map((bee) => beePage(bee, baseUrl, 3).trimEnd()))
  sections.push(everyBee(baseUrl, pageSize), optional(baseUrl))
  return sections.join('\n\n') + '\n'
}
