import type { Executor } from '../execution/executor.js'
import type { Logger } from '../logger.js'
import { crawlSite, type CrawlLimits } from './crawl/crawl-site.js'
import type { SiteFetcher } from './crawl/fetch-page.js'
import { agentManifest } from './outputs/agent-manifest.js'
import { jsonLd } from './outputs/json-ld.js'
import { llmsTxt } from './outputs/llms-txt.js'
import { semanticSummary } from './outputs/semantic-summary.js'
import type { Prepare } from './worker.js'

export interface PreparerOptions {
  fetcher: SiteFetcher
  limits: CrawlLimits
  executor: Pick<Executor, 'execute'>
  log: Logger
}

/** One run of a preparation: crawl the site, summarize it through the execution core, compose the four files. */
export function websitePreparer ({ fetcher, limits, executor, log }: PreparerOptions): Prepare {
  return async (preparation, run) => {
    const crawl = await crawlSite(preparation.websiteUrl, { fetcher, limits, signal: run.signal, report: run.report })
    if (!crawl.ok) return crawl
    const fetched = { pagesFetched: crawl.pages.length, pagesPlanned: crawl.pages.length }
    run.report({ ...fetched, stage: 'summarizing' })
    const summary = await semanticSummary(executor, preparation, crawl.pages, {
      requestId: `${preparation.id}-${preparation.attempts}`,
      log
    })
    if (!summary.ok) return { ok: false, error: summary.error, retryable: true }
    run.report({ ...fetched, stage: 'composing' })
    const graph = jsonLd(preparation, crawl.pages)
    return {
      ok: true,
      files: {
        llmsTxt: llmsTxt(preparation, crawl.pages),
        schemaOrgJsonLd: graph.text,
        agentManifest: agentManifest(preparation, crawl.pages),
        semanticSummary: summary.markdown,
        notes: [...crawl.notes, ...graph.notes].map((note) => `- ${note}`).join('\n')
      }
    }
  }
}
