// The baseline of the proxied-call row: bare Fastify (defaults: no logger, no plugins, no schemas) forwarding each
// POST's parsed body to UPSTREAM_URL over an undici Agent's kept-alive pool, the same pool settings Apiary's proxy
// uses, and sending the upstream's JSON back. Plain .mjs so it runs under `node` alone.
import Fastify from 'fastify'
import { Agent, request } from 'undici'

const upstream = process.env.UPSTREAM_URL ?? ''
const agent = new Agent({ keepAliveTimeout: 10_000, connections: 64 })

const app = Fastify()
app.post('/proxy', async (incoming) => {
  const { statusCode, body } = await request(upstream, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(incoming.body)
  })
  if (statusCode !== 200) throw new Error(`the upstream answered ${statusCode}`)
  return await body.json()
})
app.get('/health', async () => ({ status: 'ok' }))

await app.listen({ port: Number(process.env.PORT), host: process.env.HOST })
