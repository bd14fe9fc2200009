import { beeDocumentPath } from '../../core/publishing/openapi-paths.js'
import type { RegisteredBee } from '../../core/registry.js'
import { WALLET_HEADER_NAME } from '../../core/schemas.js'
import { callExamples, WALLET_TOKEN_VARIABLE } from './call-examples.js'
import { code, fenced, oneLine } from './inline.js'
import { priceText } from './price.js'
import { schemaTable } from './schema-table.js'

/** Why a Bee that is not active answers as it does: the same rules as the execute route's admission. */
function statusNote (bee: RegisteredBee): string | null {
  const { status, statusMessage, sunsetAt } = bee.record
  const why = statusMessage === null ? '' : ` ${oneLine(statusMessage)}`
  if (status === 'inactive') return `**This Bee is inactive**: calls are refused (409 \`BEE_INACTIVE\`), and it is not listed in discovery.${why}`
  if (status === 'deprecated') {
    const end = sunsetAt === null ? 'no end date is announced yet' : `it stops answering at ${sunsetAt}`
    return `**This Bee is deprecated**: it still answers, with Deprecation and Sunset headers; ${end}.${why}`
  }
  return null
}

function payment (bee: RegisteredBee): string {
  if (!bee.paid) return 'Free: no wallet needed.'
  return `Each call is charged to a prepaid wallet: send its token in \`${WALLET_HEADER_NAME}\` ` +
    `(the examples read it from \`$${WALLET_TOKEN_VARIABLE}\`). Without a funded wallet the answer is 402 with the price; ` +
    'nothing is charged when the call fails.'
}

/**
 * The Markdown view of one Bee: what it does, its price, its input and output as tables, and a curl and an MCP
 * example that work as printed against `baseUrl`. `level` is the depth of its title heading (1 on its own
 * page, deeper when llms-full.txt inlines it).
 */
export function beePage (bee: RegisteredBee, baseUrl: string, level = 1): string {
  const { record } = bee
  const heading = (depth: number, text: string) => `${'#'.repeat(level + depth)} ${text}`
  const note = statusNote(bee)
  const sections = [
    heading(0, oneLine(record.name)),
    `> ${oneLine(record.description)}`,
    ...(note === null ? [] : [note]),
    [
      `- Id: ${code(record.id)}`,
      `- Price: ${priceText(record.pricing)}`,
      `- Category: ${code(record.category)}, colony: ${code(record.colony)}`,
      `- Status: ${record.status}`,
      `- Version: ${record.version} (pin a version with the \`Bee-Version\` header; ${baseUrl}/api/bees/${record.id}/versions lists them)`,
      `- Execute: \`POST ${baseUrl}${record.endpoint}\` with the input as a JSON body; the answer is Honey ` +
        '`{beeId, timestamp, result, confidence, freshness}`',
      `- MCP: the tool ${code(record.id)} at \`${baseUrl}/mcp\``,
      `- JSON record: ${baseUrl}/api/bees/${record.id}`,
      `- OpenAPI: ${baseUrl}${beeDocumentPath(record.id)} (its execute call with exact schemas, for a client generator)`
    ].join('\n'),
    payment(bee),
    heading(1, 'Input'),
    'The JSON body of the execute call (over MCP: the tool\'s arguments).',
    schemaTable(record.inputSchema),
    heading(1, 'Output'),
    'Honey\'s `result` (over MCP: the tool result\'s `structuredContent`).',
    schemaTable(record.outputSchema)
  ]
  if (record.status !== 'inactive') {
    const examples = callExamples(bee, baseUrl)
    const sketch = examples.inputIsValid ? [] : ['The example input below does not pass the input schema as it stands: adjust its values to the table above.']
    sections.push(
      heading(1, 'Call it with curl'),
      ...sketch,
      fenced('sh', examples.curl),
      heading(1, 'Call it over MCP'),
      `A \`tools/call\` request, the JSON-RPC body of \`POST ${baseUrl}/mcp\` (no session or handshake needed):`,
      fenced('json', examples.mcpBody),
      'Sent with curl:',
      fenced('sh', examples.mcpCurl)
    )
  }
  return sections.join('\n\n') + '\n'
}
