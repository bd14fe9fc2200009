// eval/RESULTS.md: every table `npm run eval` prints, and a reliability diagram per sentiment set (SVG files beside
// it, linked from it), written from one run.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { reliabilitySvg } from './reliability-svg.js'
import { formatSentimentTable, type SentimentRow } from './sentiment.js'
import { formatRougeTable, type RougeRow } from './summaries.js'

export interface EvalResults {
  /** How the Bees were called: in-process, or the URL of the service. */
  mode: string
  sentiment?: { apiary: readonly SentimentRow[], vader: readonly SentimentRow[] }
  summaries: Array<{ title: string, rows: readonly RougeRow[] }>
}

export const RELIABILITY_FOLDER = 'reliability'

const fixed = (value: number): string => value.toFixed(3)

function baselineTable (rows: readonly SentimentRow[]): string {
  return [
    '| set | F1 | r | whole set: F1 | r |',
    '|---|---:|---:|---:|---:|',
    ...rows.map(row => `| ${row.set} | ${fixed(row.f1)} | ${fixed(row.r)} | ${fixed(row.whole.f1)} | ${fixed(row.whole.r)} |`)
  ].join('\n')
}

function calibrationSection (rows: readonly SentimentRow[]): string {
  const table = [
    '| set | n | expected calibration error (10 bins) | reliability diagram |',
    '|---|---:|---:|---|',
    ...rows.map(row => `| ${row.set} | ${row.items} | ${fixed(row.calibrationError)} | [${RELIABILITY_FOLDER}/${row.set}.svg](${RELIABILITY_FOLDER}/${row.set}.svg) |`)
  ]
  const pictures = rows.map(row => `![${row.set}: reliability of confidence](${RELIABILITY_FOLDER}/${row.set}.svg)`)
  return [
    '## Calibration of `confidence` (reporting halves)\n',
    table.join('\n'),
    '\nEach bar is a bin of predictions by confidence, as high as the share of them whose label was right; the dot is ' +
      'at the bin\'s mean confidence, the number above it counts the predictions, and the dashed diagonal is perfect ' +
      'calibration. The evaluation has no other held-out review sentences than the movie and Amazon reporting halves.\n',
    pictures.join('\n')
  ].join('\n')
}

export function resultsMarkdown (results: EvalResults): string {
  const sections = [`# Apiary evaluation results\n\nWritten by \`npm run eval\` (${results.mode}); every figure, the baselines' included, comes from this one run.`]
  if (results.sentiment !== undefined) {
    sections.push('## Sentiment: reporting halves of the VADER ground-truth sets\n\n' +
      'Apiary, with VADER\'s published figures in brackets. "Whole set" is both halves; the model was tuned on one of them.\n\n' +
      formatSentimentTable(results.sentiment.apiary),
    '### VADER (vader-sentiment), run here\n\n' + baselineTable(results.sentiment.vader),
    calibrationSection(results.sentiment.apiary))
  }
  for (const { title, rows } of results.summaries) sections.push(`## ${title}\n\n${formatRougeTable(rows)}`)
  return sections.join('\n\n') + '\n'
}

/** Writes DIR/RESULTS.md and DIR/reliability/SET.svg; returns the Markdown. */
export function writeResults (dir: string, results: EvalResults): string {
  const markdown = resultsMarkdown(results)
  mkdirSync(dir, { recursive: true })
  for (const row of results.sentiment?.apiary ?? []) {
    mkdirSync(join(dir, RELIABILITY_FOLDER), { recursive: true })
    const title = `${row.set}: expected calibration error ${fixed(row.calibrationError)}`
    writeFileSync(join(dir, RELIABILITY_FOLDER, `${row.set}.svg`), reliabilitySvg(title, row.reliability))
  }
  writeFileSync(join(dir, 'RESULTS.md'), markdown)
  return markdown
}
