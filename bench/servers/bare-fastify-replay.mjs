// What the framework alone costs: Fastify with defaults (no logger, no plugins, no schemas) answering each path with
// the exact answer Apiary sent, as the raw baseline does. Its ratio to raw node:http is the ceiling any Fastify
// service reaches on these answers. Plain .mjs so it runs under `node` alone.
import { readFileSync } from 'node:fs'
import Fastify from 'fastify'
import { replayable } from './replay.mjs'

/** @type {Record<string, import('./replay.mjs').CapturedAnswer>} */
const captured = JSON.parse(readFileSync(process.env.RESPONSES_FILE ?? '', 'utf8'))

const app = Fastify()
for (const [path, answer] of Object.entries(captured)) {
  const { status, bytes } = replayable(answer)
  // Fastify writes Content-Length itself; the rest are set as Apiary set them.
  const named = Object.fromEntries(answer.headers.filter(([name]) => name !== 'content-length'))
  const reply = (_request, response) => { response.code(status).headers(named).send(bytes) }
  app.get(path, reply)
  app.post(path, reply)
}
app.get('/health', async () => ({ status: 'ok' }))

await app.listen({ port: Number(process.env.PORT), host: process.env.HOST })
