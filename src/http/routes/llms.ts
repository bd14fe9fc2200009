import type { FastifyPluginAsync } from 'fastify'
import { Type } from 'typebox'
import { baseUrlOf } from '../base-url.js'
import { PerBaseUrl, sendCached } from '../cached-text.js'
import { llmsFull, llmsIndex } from '../markdown/llms-index.js'
import { BAD_HOST } from '../refusals.js'

const TEXT_TYPE = 'text/plain; charset=utf-8'

const responses = (description: string) => ({
  200: { description, content: { 'text/plain': { schema: { type: 'string', description } } } },
  304: Type.Null({ description: 'Not modified since the ETag you sent.' }),
  400: BAD_HOST
})

/**
 * /llms.txt and /llms-full.txt (llmstxt.org): the registry as Markdown for language models, with links and
 * examples at the address the request came in at. Each is rendered once per registry version and base URL.
 */
const llmsRoutes: FastifyPluginAsync = async (fastify) => {
  const { registry } = fastify
  let rendered = { version: -1, index: new PerBaseUrl(), full: new PerBaseUrl() }
  const current = () => {
    if (rendered.version !== registry.version) rendered = { version: registry.version, index: new PerBaseUrl(), full: new PerBaseUrl() }
    return rendered
  }

  fastify.get('/llms.txt', {
    schema: {
      tags: ['discovery'],
      operationId: 'llms-txt',
      security: [],
      summary: 'The registry for language models (llms.txt)',
      description: 'The llmstxt.org index: what Apiary is, how to call and pay, every active Bee by category linked to its ' +
        'Markdown view with its price, and links to the OpenAPI document, the MCP endpoint and the wallet docs. ' +
        'Strong ETag; 304 on If-None-Match.',
      response: responses('The llms.txt index (Markdown, served as text/plain).')
    }
  }, async (request, reply) => {
    const baseUrl = baseUrlOf(request)
    return sendCached(request, reply, current().index.get(baseUrl, () => llmsIndex(registry.all(), baseUrl)), TEXT_TYPE)
  })

  fastify.get('/llms-full.txt', {
    schema: {
      tags: ['discovery'],
      operationId: 'llms-full-txt',
      security: [],
      summary: 'The registry for language models, every Bee inlined (llms-full.txt)',
      description: 'llms.txt with the Markdown view of every active Bee inlined under its category. Strong ETag; 304 on If-None-Match.',
      response: responses('llms.txt with every active Bee\'s Markdown view (Markdown, served as text/plain).')
    }
  }, async (request, reply) => {
    const baseUrl = baseUrlOf(request)
    return sendCached(request, reply, current().full.get(baseUrl, () => llmsFull(registry.all(), baseUrl)), TEXT_TYPE)
  })
}

export default llmsRoutes
