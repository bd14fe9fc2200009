// The inner loop: runs the test files a change touches, not the whole suite. A change is what differs from BASE
// (default: where this branch left main, or HEAD on main), committed or not, plus new files. The tests it touches:
// - changed test files themselves;
// - the test that mirrors a changed file (src/core/x.ts → test/core/x.test.ts, plugins/y.ts → test/plugins/y.test.ts);
// - test files that import a changed file themselves (not through test/helper.ts and the whole app, which nearly
//   every test builds: that would be the whole suite, which `npm test` runs).
// Usage: npm run test:changed [-- --base REV] [-- --list] [-- tap options]
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim()

const args = process.argv.slice(2)
const baseAt = args.indexOf('--base')
const base = baseAt >= 0 ? args.splice(baseAt, 2)[1] : defaultBase()
const listOnly = args.includes('--list') ? (args.splice(args.indexOf('--list'), 1), true) : false

function defaultBase () {
  try {
    const mergeBase = git('merge-base', 'HEAD', 'main')
    return mergeBase === git('rev-parse', 'HEAD') ? 'HEAD' : mergeBase
  } catch {
    return 'HEAD'
  }
}

const changed = new Set([
  ...git('diff', '--name-only', base).split('\n'),
  ...git('ls-files', '--others', '--exclude-standard').split('\n')
].filter((file) => file !== '' && existsSync(join(root, file))))

const testFiles = readdirSync(join(root, 'test'), { recursive: true })
  .map((file) => join('test', file))
  .filter((file) => file.endsWith('.test.ts'))

/** The project files a test file imports itself, as paths from the root (`.js` specifiers name `.ts` sources). */
function importsOf (file) {
  const source = readFileSync(join(root, file), 'utf8')
  return [...source.matchAll(/(?:from |import\()\s*'(\.{1,2}\/[^']+)'/g)]
    .map(([, specifier]) => relative(root, resolve(root, dirname(file), specifier)).replace(/\.js$/, '.ts'))
}

/** test/<path below src/, or the path itself>.test.ts */
const mirrorOf = (file) => join('test', file.replace(/^src\//, '').replace(/\.(ts|mjs|js)$/, '.test.ts'))

const selected = new Set()
for (const file of changed) {
  if (file.endsWith('.test.ts')) selected.add(file)
  const mirror = mirrorOf(file)
  if (existsSync(join(root, mirror))) selected.add(mirror)
}
for (const test of testFiles) {
  if (importsOf(test).some((file) => changed.has(file))) selected.add(test)
}
const files = [...selected].filter((file) => existsSync(join(root, file))).sort()

if (files.length === 0) {
  console.log(`No test file touches the change since ${base} (${changed.size} files): run \`npm test\` for the whole suite.`)
  process.exit(0)
}
console.log(`${files.length} test files touch the change since ${base}:\n  ${files.join('\n  ')}`)
if (listOnly) process.exit(0)
// Files of the suites that spawn servers need their longer timeout.
const timeout = files.some((file) => /^test\/(process|adversarial)\//.test(file)) ? ['--timeout', '900'] : []
const run = spawnSync('npx', ['tap', ...timeout, ...args, ...files], { cwd: root, stdio: 'inherit' })
process.exit(run.status ?? 1)
