import type { Executor } from '../../execution/executor.js'
import type { Logger } from '../../logger.js'
import type { ReadPage } from '../crawl/read-page.js'
import type { PreparationError, PreparationInputs } from '../schemas.js'

export const SUMMARIZER_BEE = 'text-summarizer'
/** Words of the summary. */
const SUMMARY_WORDS = 120
const KEY_POINTS = 5
/** The summarizer's text: the description and the pages' main text, up to this many characters. */
const MAX_TEXT_CHARS = 200_000

interface SummaryResult { summary: string, keyPoints: string[] }

export type SemanticSummary = { ok: true, markdown: string } | { ok: false, error: PreparationError }

/**
 * The semantic summary: the text-summarizer Bee, run through the one execution core like any call,
 * over the submitted description and the main text of the crawled pages, as Markdown.
 */
export async function semanticSummary (
  executor: Pick<Executor, 'execute'>, inputs: PreparationInputs, pages: readonly ReadPage[], context: { requestId: string, log: Logger }
): Promise<SemanticSummary> {
  const text = [inputs.description, ...pages.map((page) => page.mainText)].filter((part) => part.trim() !== '').join('\n\n').slice(0, MAX_TEXT_CHARS)
  const outcome = await executor.execute({
    beeId: SUMMARIZER_BEE,
    input: { text, maxLength: SUMMARY_WORDS },
    walletToken: undefined,
    idempotencyKey: undefined,
    requestId: context.requestId,
    log: context.log
  })
  if (!outcome.ok) {
    return { ok: false, error: { code: 'SUMMARY_FAILED', message: `The summarizer could not run: ${outcome.error.message}` } }
  }
  const { summary, keyPoints } = outcome.honey.result as SummaryResult
  const points = keyPoints.slice(0, KEY_POINTS).map((point) => `- ${point.replace(/\s+/g, ' ').trim()}`)
  return { ok: true, markdown: [`# ${inputs.businessName}`, '', summary, '', '## Key points', '', ...points, ''].join('\n') }
}
