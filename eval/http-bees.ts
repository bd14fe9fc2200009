// Clients of a running Apiary's execute routes, shaped like the in-process
// functions so the same evaluation code scores either.
import { WALLET_HEADER_NAME } from '../src/core/schemas.js'
import type { SentimentOutput } from './sentiment.js'

export class BeeHttpError extends Error {
  constructor (readonly status: number, readonly body: string, url: string) {
    super(`${url} answered ${status}: ${body.slice(0, 300)}`)
  }
}

async function executeBee (baseUrl: string, beeId: string, input: unknown, headers: Record<string, string> = {}): Promise<unknown> {
  const url = `${baseUrl}/api/bees/${beeId}/execute`
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(input)
  })
  const body = await response.text()
  if (!response.ok) throw new BeeHttpError(response.status, body, url)
  // Honey: { beeId, timestamp, result, confidence, freshness }; only result is scored.
  const honey: unknown = JSON.parse(body)
  if (typeof honey !== 'object' || honey === null || !('result' in honey)) throw new Error(`${url} answered without a result: ${body.slice(0, 300)}`)
  return honey.result
}

export function httpSentimentAnalyzer (baseUrl: string, token: string): (text: string) => Promise<SentimentOutput> {
  return async text => {
    const result = await executeBee(baseUrl, 'sentiment-analyzer', { text }, { [WALLET_HEADER_NAME]: token })
    const { sentiment, confidence, score } = result as Partial<SentimentOutput>
    if (typeof sentiment !== 'string' || typeof confidence !== 'number') throw new Error(`unexpected sentiment result ${JSON.stringify(result)}`)
    // A service that sends no score is scored on sign(label) x confidence (see eval/sentiment.ts).
    return typeof score === 'number' ? { sentiment, confidence, score } : { sentiment, confidence }
  }
}

export function httpSummarizer (baseUrl: string): (text: string, maxWords: number) => Promise<{ summary: string }> {
  return async (text, maxWords) => {
    const result = await executeBee(baseUrl, 'text-summarizer', { text, maxLength: maxWords })
    const { summary } = result as { summary?: unknown }
    if (typeof summary !== 'string') throw new Error(`unexpected summarizer result ${JSON.stringify(result)}`)
    return { summary }
  }
}
