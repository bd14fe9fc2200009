// What the framework alone costs: Fastify with defaults (no logger, no plugins, no schemas) answering each path with
// the exact answer Apiary sent, as the raw baseline does. Its ratio to raw node:http is the ceiling any Fastify
// service reaches on these answers. A POST first runs the Bee's own function on the body Fastify parsed, as raw-http.mjs
// does with RUN_BEES=1: the ceiling of the execute rows for any Fastify service. Plain .mjs so it runs under `node` alone.
import { readFileSync } from 'node:fs'
import Fastify from 'fastify'
import { beeWork, replayable } from './replay.mjs'

/** @type {Record<string, import('./replay.mjs').CapturedAnswer>} */
const captured = JSON.parse(readFileSync(process.env.RESPONSES_FILE ?? '', 'utf8'))

const work = await beeWork()
const app = Fastify()
for (const [path, answer] of Object.entries(captured)) {
  const { status, bytes } = replayable(answer)
  // Fastify writes Content-Length itself; the rest are set as Apiary set them.
  const named = Object.fromEntries(answer.headers.filter(([name]) => name !== 'content-length'))
  const reply = (_request, response) => { response.code(status).headers(named).send(bytes) }
  app.get(path, reply)
  const run = work.get(path)
  if (run !== undefined) {
    app.post(path, (request, response) => {
      run(request.body)
      reply(request, response)
    })
  }
}
app.get('/health', async () => ({ status: 'ok' }))

await app.listen({ port: Number(process.env.PORT), host: process.env.HOST })
