/** An llms.txt as the llmstxt.org format defines it: H1, optional blockquote, free text, then H2 sections of link lists. */
export interface LlmsTxt {
  title: string
  summary: string | null
  sections: Map<string, Array<{ title: string, url: string, note: string }>>
}

/** Parses an llms.txt the way the format's reference parser does; throws on anything out of shape. */
export function parseLlmsTxt (text: string): LlmsTxt {
  const lines = text.split('\n')
  const h1 = /^# (.+)$/.exec(lines[0] ?? '')
  if (h1 === null) throw new Error('llms.txt must start with an H1')
  let i = 1
  while (lines[i] === '') i++
  const quote = /^> (.+)$/.exec(lines[i] ?? '')
  if (quote !== null) i++
  const sections = new Map<string, Array<{ title: string, url: string, note: string }>>()
  let current: Array<{ title: string, url: string, note: string }> | null = null
  for (; i < lines.length; i++) {
    const line = lines[i] as string
    if (line.startsWith('# ')) throw new Error(`a second H1: ${line}`)
    const h2 = /^## (.+)$/.exec(line)
    if (h2 !== null) {
      current = []
      sections.set(h2[1] as string, current)
      continue
    }
    if (current === null || line === '') continue
    const item = /^- \[((?:[^\]\\]|\\.)+)\]\(([^) ]+)\)(?:: (.*))?$/.exec(line)
    if (item === null) throw new Error(`not a link list item: ${line}`)
    current.push({ title: item[1] as string, url: item[2] as string, note: item[3] ?? '' })
  }
  return { title: h1[1] as string, summary: quote?.[1] ?? null, sections }
}
