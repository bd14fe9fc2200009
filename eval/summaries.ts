/*
 * Scores summarizers with ROUGE over a folder of DIR/article/NAME.txt + DIR/summary/NAME.txt pairs, next to the lead
 * baseline (the text's first sentences), which is hard to beat on news because reporters put the gist first. Run
 * through eval/run.ts (`npm run eval -- --summaries DIR`).
 */
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { splitSentences } from '../bees/text-summarizer/sentences.js'
import { DEFAULT_MAX_WORDS } from '../bees/text-summarizer/summarize.js'
import { countWords, firstWords } from '../bees/text-summarizer/words.js'
import { rougeScores, type RougeScores } from './rouge.js'

export type Summarizer = (text: string, maxWords: number) => Promise<{ summary: string }> | { summary: string }

export interface NamedSummarizer { name: string, summarize: Summarizer }

export const LEAD_BASELINE = 'lead baseline'

/** Mean F1 of one system at one budget over all documents. */
export interface RougeRow extends RougeScores { system: string, budget: string, documents: number }

interface Budget { label: string, words: (reference: string) => number }

const BUDGETS: Budget[] = [
  { label: `${DEFAULT_MAX_WORDS} words`, words: () => DEFAULT_MAX_WORDS },
  // Scoring at the reference's length keeps a longer summary from buying recall with words. An empty reference
  // (it happens in scraped sets) still gets a one-word budget: the summarizers refuse a budget of 0.
  { label: 'reference length', words: reference => Math.max(1, countWords(reference)) }
]

/**
 * Every system, then the lead baseline, at both budgets, each given the same article and word budget; over the pairs
 * whose name `keep` accepts (default all).
 */
export async function evaluateSummaries (dir: string, systems: readonly NamedSummarizer[], keep: (name: string) => boolean = () => true): Promise<RougeRow[]> {
  const names = (await readdir(join(dir, 'article'))).filter(name => name.endsWith('.txt') && keep(name)).sort()
  if (names.length === 0) throw new Error(`No article/*.txt files in ${dir}`)
  const totals = new Map<string, RougeRow>()
  for (const name of names) {
    const article = await readFile(join(dir, 'article', name), 'utf8')
    const reference = await readFile(join(dir, 'summary', name), 'utf8')
    for (const budget of BUDGETS) {
      const words = budget.words(reference)
      const candidates: { system: string, summary: string }[] = []
      for (const { name, summarize } of systems) candidates.push({ system: name, summary: (await summarize(article, words)).summary })
      candidates.push({ system: LEAD_BASELINE, summary: leadSentences(article, words) })
      for (const { system, summary } of candidates) add(totals, { system, budget: budget.label, documents: 1, ...rougeScores(summary, reference) })
    }
  }
  return [...totals.values()].map(row => ({
    ...row,
    rouge1: row.rouge1 / row.documents,
    rouge2: row.rouge2 / row.documents,
    rougeL: row.rougeL / row.documents
  }))
}

/** The text's sentences from the start, as long as they fit; the first `maxWords` words if even the first does not. */
export function leadSentences (text: string, maxWords: number): string {
  const chosen: string[] = []
  let budget = maxWords
  for (const { start, end } of splitSentences(text)) {
    const sentence = text.slice(start, end)
    const words = countWords(sentence)
    if (words > budget) break
    chosen.push(sentence)
    budget -= words
  }
  return chosen.length > 0 ? chosen.join(' ') : firstWords(text.trim(), maxWords)
}

export function formatRougeTable (rows: readonly RougeRow[]): string {
  const lines = [
    '| System | Budget | Documents | ROUGE-1 F1 | ROUGE-2 F1 | ROUGE-L F1 |',
    '| --- | --- | ---: | ---: | ---: | ---: |',
    ...rows.map(row => `| ${row.system} | ${row.budget} | ${row.documents} | ${row.rouge1.toFixed(4)} | ${row.rouge2.toFixed(4)} | ${row.rougeL.toFixed(4)} |`)
  ]
  return lines.join('\n')
}

function add (totals: Map<string, RougeRow>, row: RougeRow): void {
  const key = `${row.system}\u0000${row.budget}`
  const total = totals.get(key)
  if (total === undefined) {
    totals.set(key, row)
    return
  }
  total.documents += row.documents
  total.rouge1 += row.rouge1
  total.rouge2 += row.rouge2
  total.rougeL += row.rougeL
}
