// What the raw baselines need to send an answer Apiary gave, byte for byte.

/** @typedef {{ status: number, headers: Array<[string, string]>, body: string }} CapturedAnswer */

/** Fastify 5's keepAliveTimeout: node:http writes it into every Keep-Alive header. */
export const FASTIFY_KEEP_ALIVE_MS = 72_000

/**
 * The captured answer ready for writeHead: its headers as node:http's flat raw list (kept in order, written without
 * per-call validation of an object) and its body as bytes.
 * @param {CapturedAnswer} answer
 */
export function replayable ({ status, headers, body }) {
  return { status, headers: headers.flat(), bytes: Buffer.from(body, 'base64') }
}

/**
 * The Bees' own work, by their execute path: the built summarizer and sentiment analysis from dist/, run on the
 * parsed request body. What they return is dropped; a baseline sends the captured answer.
 * @returns {Promise<Map<string, (body: { text: string }) => unknown>>}
 */
export async function beeWork () {
  const { summarize } = await import('../../dist/bees/text-summarizer/summarize.js')
  const { analyzeSentiment } = await import('../../dist/bees/sentiment-analyzer/analyze.js')
  return new Map([
    ['/api/bees/text-summarizer/execute', (body) => summarize(body.text)],
    ['/api/bees/sentiment-analyzer/execute', (body) => analyzeSentiment(body.text)]
  ])
}
