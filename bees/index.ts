import type { FastifyPluginAsync } from 'fastify'
import sentimentAnalyzer from './sentiment-analyzer/index.js'
import textSummarizer from './text-summarizer/index.js'
import weatherSensor from './weather-sensor/index.js'

/** The built-in Bees. Each is an encapsulated plugin that registers itself and its execute route. */
const builtInBees: FastifyPluginAsync = async (fastify) => {
  await fastify.register(sentimentAnalyzer)
  await fastify.register(textSummarizer)
  await fastify.register(weatherSensor)
}

export default builtInBees
