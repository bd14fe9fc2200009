import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { test } from 'tap'

const config = new URL('../eslint.config.js', import.meta.url).pathname
const eslintBin = new URL('../node_modules/eslint/bin/eslint.js', import.meta.url).pathname

interface LintResult { filePath: string, messages: Array<{ ruleId: string | null }> }

/** Lints a tree of files laid out as the project is (src/core/…), in a folder of its own, with the project's ESLint config. */
async function lintTree (files: Record<string, string>) {
  const root = await mkdtemp(join(tmpdir(), 'apiary-layering-'))
  try {
    const tree = { 'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true }, include: ['src'] }), ...files }
    for (const [path, text] of Object.entries(tree)) {
      await mkdir(dirname(join(root, path)), { recursive: true })
      await writeFile(join(root, path), text)
    }
    // ESLint's own command, as `npm run lint` runs it: not in this process, whose loader (tsx) resolves its ESM-only packages wrongly.
    const { NODE_OPTIONS: _loader, ...env } = process.env
    const lint = await promisify(execFile)(process.execPath, [eslintBin, '--config', config, '--format', 'json', 'src'], { cwd: root, env })
      .catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '[]' }))
    const results = JSON.parse(lint.stdout) as LintResult[]
    return results.flatMap((result) => result.messages.map((message) => `${result.filePath.slice(root.length + 1)} ${message.ruleId ?? ''}`))
  } finally {
    await rm(root, { recursive: true, force: true })
  }
}

/** One tree for every case: ESLint's start-up (its config, the TypeScript resolver) is most of a run's time. */
const TREE = {
  // A cycle between two doors' files.
  'src/http/cycle-a.ts': "import { b } from './cycle-b.js'\nexport const a = (): unknown => b\n",
  'src/http/cycle-b.ts': "import { a } from './cycle-a.js'\nexport const b = (): unknown => a\n",
  // What src/core/ may not import.
  'src/core/uses-fastify.ts': "import type { FastifyInstance } from 'fastify'\nexport type App = FastifyInstance\n",
  'src/core/uses-a-door.ts': "import { door } from '../http/door.js'\nexport const used = door\n",
  'src/core/uses-a-plugin.ts': "import { plugin } from '../../plugins/plugin.js'\nexport const used = plugin\n",
  'src/core/uses-the-app.ts': "import { app } from '../app.js'\nexport const used = app\n",
  'src/app.ts': 'export const app = 1\n',
  // The same imports where they belong: a door uses Fastify and the core.
  'src/http/door.ts': "import type { FastifyInstance } from 'fastify'\nimport { core } from '../core/core.js'\nexport const door = (app: FastifyInstance): unknown => [app, core]\n",
  'src/core/core.ts': 'export const core = 1\n'
}

test('the project\'s ESLint config refuses import cycles and what src/core/ may not import, and nothing else of those', { timeout: 180_000 }, async (t) => {
  const problems = (await lintTree(TREE)).filter((problem) => /no-cycle|no-restricted-imports/.test(problem)).sort()
  t.same(problems, [
    'src/core/uses-a-door.ts no-restricted-imports',
    'src/core/uses-a-plugin.ts no-restricted-imports',
    'src/core/uses-fastify.ts no-restricted-imports',
    'src/core/uses-the-app.ts no-restricted-imports',
    'src/http/cycle-a.ts import-x/no-cycle',
    'src/http/cycle-b.ts import-x/no-cycle'
  ])
})
