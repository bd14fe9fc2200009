// The floor for cold start: Fastify with defaults (no logger, no schemas, no plugins) and only /health.
// Plain .mjs so it runs under `node` alone.
import Fastify from 'fastify'

const app = Fastify()
app.get('/health', async () => ({ status: 'ok' }))

await app.listen({ port: Number(process.env.PORT), host: process.env.HOST })
