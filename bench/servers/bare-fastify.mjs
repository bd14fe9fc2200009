// The floor for execute and cold start: Fastify with defaults (no logger, no schemas, no plugins).
// With BEE set it also serves that Bee's execute route, calling the same built function as Apiary with no payment;
// without BEE it has only /health, for the cold-start comparison. Plain .mjs so it runs under `node` alone.
import Fastify from 'fastify'

const app = Fastify()
app.get('/health', async () => ({ status: 'ok' }))

/** The Honey envelope Apiary answers with. */
const honey = (beeId, result, confidence) => ({ beeId, timestamp: new Date().toISOString(), result, confidence, freshness: 0 })

const bee = process.env.BEE
if (bee === 'text-summarizer') {
  const { summarize, DEFAULT_MAX_WORDS } = await import('../../dist/bees/text-summarizer/summarize.js')
  app.post(`/api/bees/${bee}/execute`, async (request) => {
    const { text, maxLength } = request.body
    const { summary, keyPoints, confidence } = summarize(text, maxLength ?? DEFAULT_MAX_WORDS)
    return honey(bee, { summary, keyPoints }, confidence)
  })
} else if (bee === 'sentiment-analyzer') {
  const { analyzeSentiment } = await import('../../dist/bees/sentiment-analyzer/analyze.js')
  app.post(`/api/bees/${bee}/execute`, async (request) => {
    const { sentiment, confidence } = analyzeSentiment(request.body.text)
    return honey(bee, { sentiment, confidence }, confidence)
  })
} else if (bee !== undefined) {
  throw new Error(`unknown BEE ${bee}`)
}

await app.listen({ port: Number(process.env.PORT), host: process.env.HOST })
