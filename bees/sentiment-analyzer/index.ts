import type { FastifyPluginAsync } from 'fastify'
import { mountBee } from '../../src/http/execute-route.js'
import { analyzeSentiment, SENTIMENT_PROVIDER } from './analyze.js'
import { SentimentInput, SentimentOutput } from './schemas.js'

const sentimentAnalyzer: FastifyPluginAsync = async (fastify) => {
  const { config } = fastify
  const bee = fastify.registry.register({
    id: 'sentiment-analyzer',
    name: 'Sentiment Analyzer',
    description: 'Classifies the sentiment of English text as positive, negative or neutral with two sentiment lexicons ' +
      'and a word model trained on human ratings, all run offline. Honey confidence: the calibrated probability that the label is right (the same as ' +
      'result.confidence); result.score is the signed polarity in [-1, 1]. Honey freshness: always 0, computed at call time.',
    category: 'utility',
    colony: 'core',
    type: 'builtin',
    ownerId: null,
    pricing: { type: 'pay-per-use', costPerCall: config.PRICE_SENTIMENT_ANALYZER, currency: config.PRICE_CURRENCY },
    config: {
      primaryServices: ['sentiment-analysis', 'text-classification'],
      executionMode: 'in-process',
      executionProvider: SENTIMENT_PROVIDER
    },
    inputSchema: SentimentInput,
    outputSchema: SentimentOutput,
    async execute ({ text }) {
      const { sentiment, confidence, score } = analyzeSentiment(text)
      return { result: { sentiment, confidence, score }, confidence, freshness: 0 }
    }
  })
  mountBee(fastify, bee)
}

export default sentimentAnalyzer
