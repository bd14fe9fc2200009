import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { ConfigSchema } from '../src/config.js'

/** Where the generated file lives: the repository's root. */
export const envExamplePath = fileURLToPath(new URL('../.env.example', import.meta.url))

const width = 118

/** Words of `text` as `# ` comment lines no wider than `width`. */
function comment (text: string): string[] {
  const lines: string[] = []
  let line = '#'
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (line.length + 1 + word.length > width && line !== '#') {
      lines.push(line)
      line = '#'
    }
    line += ` ${word}`
  }
  return [...lines, line]
}

/**
 * `.env.example`: every variable of the configuration schema (src/config.ts), in its order, with its description and
 * default, each assignment commented out so a copy changes nothing until a line is uncommented.
 */
export function envExample (): string {
  const header = [
    '# Apiary configuration: every environment variable, generated from src/config.ts by `npm run env:example`',
    '# (do not edit by hand: a test checks this file matches the schema). Apiary reads only its environment; to use',
    '# a file, copy this one to .env, uncomment what you set, and start with `node --env-file=.env dist/bundle/server.js`.',
    '# Unset (or empty) means the default. docs/operators/configuration.md says more about each.',
    ''
  ]
  const blocks = Object.entries(ConfigSchema.properties).map(([name, schema]) => {
    const { description, default: fallback } = schema as { description?: string, default?: unknown }
    const value = fallback === undefined ? '' : String(fallback)
    return [
      ...comment(description ?? ''),
      ...(fallback === undefined ? ['# Default: unset.'] : []),
      `#${name}=${value}`,
      ''
    ].join('\n')
  })
  return [...header, ...blocks].join('\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(envExamplePath, envExample())
  console.log(`wrote ${envExamplePath}`)
}
