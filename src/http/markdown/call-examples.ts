import type { RegisteredBee } from '../../core/registry.js'
import { WALLET_HEADER_NAME } from '../../core/schemas.js'
import { exampleValue } from './example-value.js'

/** The shell variable a paid example reads the wallet token from, as in the README. */
export const WALLET_TOKEN_VARIABLE = 'APIARY_WALLET_TOKEN'

/** Single-quoted for a POSIX shell: nothing inside is expanded. */
const shellQuote = (text: string) => `'${text.replace(/'/g, '\'\\\'\'')}'`

export interface CallExamples {
  /** Whether the input the examples send passes the Bee's input schema. */
  inputIsValid: boolean
  curl: string
  /** The JSON-RPC body of an MCP tools/call, and the curl command that posts it. */
  mcpBody: string
  mcpCurl: string
}

/** An input to call the Bee with (its own example, or one built from its schema), and whether its schema accepts it. */
export function exampleInput (bee: RegisteredBee): { input: unknown, valid: boolean } {
  const input = exampleValue(bee.record.inputSchema)
  // On a copy: validation fills in defaults, and the examples send the value as printed.
  return { input, valid: bee.validateInput(structuredClone(input)) }
}

/** A curl command for the execute route and one for MCP, both sending an example input, runnable as printed. */
export function callExamples (bee: RegisteredBee, baseUrl: string): CallExamples {
  const { input, valid } = exampleInput(bee)
  const wallet = bee.paid ? ` -H "${WALLET_HEADER_NAME}: $${WALLET_TOKEN_VARIABLE}"` : ''
  const body = JSON.stringify(input)
  const mcpBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: bee.record.id, arguments: input } })
  return {
    inputIsValid: valid,
    curl: `curl -s -X POST ${baseUrl}${bee.record.endpoint} \\\n  -H 'content-type: application/json'${wallet} \\\n` +
      `  -d ${shellQuote(body)}`,
    mcpBody,
    mcpCurl: `curl -s -X POST ${baseUrl}/mcp \\\n  -H 'content-type: application/json' -H 'accept: application/json, text/event-stream'${wallet} \\\n` +
      `  -d ${shellQuote(mcpBody)}`
  }
}
