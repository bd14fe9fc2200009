/**
 * Text from records (a publisher's name or description, a schema's pattern) placed inside Markdown. It is
 * data, never markup: whitespace collapses so that it stays on its line (a description cannot open a
 * heading of its own in llms.txt), and the characters that would end a link text or a table cell are escaped.
 */
export const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim()

/** For a table cell: one line, pipes escaped (GFM reads `\|` as a pipe even inside a code span). */
export const cell = (text: string) => oneLine(text).replace(/\|/g, '\\|')

/** For a link text: one line, brackets escaped. */
export const linkText = (text: string) => oneLine(text).replace(/[[\]\\]/g, (character) => `\\${character}`)

/** A code span that holds any text: its fence is one backtick longer than the longest run inside. */
export function code (text: string): string {
  const runs = text.match(/`+/g) ?? []
  const fence = '`'.repeat(Math.max(0, ...runs.map((run) => run.length)) + 1)
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : ''
  return `${fence}${pad}${text}${pad}${fence}`
}

/** A fenced code block that holds any text: its fence is longer than any backtick run inside. */
export function fenced (language: string, text: string): string {
  const runs = text.match(/`{3,}/g) ?? []
  const fence = '`'.repeat(Math.max(2, ...runs.map((run) => run.length)) + 1)
  return `${fence}${language}\n${text}\n${fence}`
}
