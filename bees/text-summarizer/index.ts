import type { FastifyPluginAsync } from 'fastify'
import { mountBee } from '../../src/http/execute/routes.js'
import { DEFAULT_MAX_WORDS, summarize, SUMMARIZER_PROVIDER } from './summarize.js'
import { SummaryInput, SummaryOutput } from './schemas.js'

const textSummarizer: FastifyPluginAsync = async (fastify) => {
  const bee = fastify.registry.register({
    id: 'text-summarizer',
    name: 'Text Summarizer',
    description: 'Extractive summary of a text: its most central sentences (TextRank), copied verbatim in their original ' +
      'order, within maxLength words, plus key points. Deterministic. Honey confidence: the share of the text\'s ' +
      'centrality that the summary covers (1 when the whole text fits). Honey freshness: always 0, computed at call time.',
    category: 'reasoning',
    colony: 'core',
    version: '1.0.0',
    type: 'builtin',
    ownerId: null,
    pricing: { type: 'free', costPerCall: 0, currency: fastify.config.PRICE_CURRENCY },
    config: {
      primaryServices: ['summarization', 'key-point-extraction'],
      executionMode: 'sync',
      executionProvider: SUMMARIZER_PROVIDER
    },
    inputSchema: SummaryInput,
    outputSchema: SummaryOutput,
    async execute ({ text, maxLength }) {
      const { summary, keyPoints, confidence } = summarize(text, maxLength ?? DEFAULT_MAX_WORDS)
      return { result: { summary, keyPoints }, confidence, freshness: 0 }
    }
  })
  mountBee(fastify, bee)
}

export default textSummarizer
