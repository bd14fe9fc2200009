import type { FastifyPluginAsync } from 'fastify'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { mountBee } from '../../src/http/execute/routes.js'
import { SENTIMENT_PROVIDER } from './about.js'
import type { analyzeSentiment } from './analyze.js'
import { SentimentInput, SentimentOutput } from './schemas.js'

const sentimentAnalyzer: FastifyPluginAsync = async (fastify) => {
  const { config } = fastify
  // The lexicons and the word model load after the server listens; a call that comes first waits for them.
  let analyze: typeof analyzeSentiment | undefined
  const loaded = fastify.warmUp.add('sentiment-analyzer models', async () => {
    // In two steps with a turn of the event loop between them: a probe that arrives meanwhile waits for one model's
    // load, not for both.
    await import('./signals.js')
    await nextTurn()
    analyze = (await import('./analyze.js')).analyzeSentiment
  })
  const bee = fastify.registry.register({
    id: 'sentiment-analyzer',
    name: 'Sentiment Analyzer',
    description: 'Classifies the sentiment of English text as positive, negative or neutral with two sentiment lexicons ' +
      'and a word model trained on human ratings, all run offline. Honey confidence: the calibrated probability that the label is right (the same as ' +
      'result.confidence); result.score is the signed polarity in [-1, 1]. Honey freshness: always 0, computed at call time.',
    category: 'utility',
    colony: 'core',
    version: '1.0.0',
    type: 'builtin',
    ownerId: null,
    pricing: { type: 'pay-per-use', costPerCall: config.PRICE_SENTIMENT_ANALYZER, currency: config.PRICE_CURRENCY },
    config: {
      primaryServices: ['sentiment-analysis', 'text-classification'],
      executionMode: 'sync',
      executionProvider: SENTIMENT_PROVIDER
    },
    inputSchema: SentimentInput,
    outputSchema: SentimentOutput,
    async execute ({ text }) {
      if (analyze === undefined) await loaded()
      const { sentiment, confidence, score } = analyze!(text)
      return { result: { sentiment, confidence, score }, confidence, freshness: 0 }
    }
  })
  mountBee(fastify, bee)
}

export default sentimentAnalyzer
