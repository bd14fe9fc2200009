// The tests' TypeScript loader (.taprc's node-arg): tsx, with typebox and kysely each read as one pre-bundled file.
//
// Why: on Node 20, module hooks run on a separate thread, and every module a test process loads crosses to it and
// back, for tsx's hook and for tap's own (@tapjs/processinfo). typebox's ESM build is 680 modules and kysely's 262,
// two thirds of the 1,400 the app loads: about 1.2 of the 4 CPU seconds each test process spends before its first
// test (CONTRIBUTING.md, Test times). Bundled, each is one module, with the same code.
//
// Only the project's own files are redirected (tsconfig `paths`, which tsx applies to them); no package in
// node_modules imports either at run time, so each still has one copy per process. The bundles are built by esbuild
// (tsx's own compiler) on first use, and again when either package's version changes.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { register } from 'tsx/esm/api'
import { buildSync } from 'esbuild'

const root = dirname(dirname(fileURLToPath(import.meta.url)))
const versionOf = (name) => JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version
const bundled = { typebox: 'typebox', 'typebox/value': 'typebox-value', kysely: 'kysely' }
const packages = [...new Set(Object.keys(bundled).map((specifier) => specifier.split('/')[0]))]
const stamp = packages.map((name) => `${name}-${versionOf(name)}`).join('-')
const dir = join(root, 'node_modules', '.cache', 'apiary-test-loader', stamp)
const firstBundle = join(dir, `${Object.values(bundled)[0]}.mjs`)
// The tsconfig names this checkout (its tsconfig.json and baseUrl), and git worktrees may share one node_modules: one
// tsconfig per checkout, beside the bundles they share.
const tsconfig = join(dir, `tsconfig-${createHash('sha256').update(root).digest('hex').slice(0, 16)}.json`)

if (!existsSync(firstBundle)) {
  // Test processes start side by side: each builds into a directory of its own and renames it into place, so a
  // reader sees no bundle or a whole one.
  const building = `${dir}.${process.pid}`
  mkdirSync(join(building, 'entries'), { recursive: true })
  const entries = Object.entries(bundled).map(([specifier, name]) => {
    const entry = join(building, 'entries', `${name}.mjs`)
    writeFileSync(entry, `export * from '${specifier}'\n${specifier === 'typebox' ? "export { default } from 'typebox'\n" : ''}`)
    return entry
  })
  // One build with shared chunks: typebox/value uses the same typebox modules as typebox, as unbundled.
  buildSync({
    entryPoints: entries,
    entryNames: '[name]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    outdir: building,
    outExtension: { '.js': '.mjs' },
    absWorkingDir: root,
    logLevel: 'warning'
  })
  try {
    renameSync(building, dir)
  } catch (error) {
    // Another process renamed its build into place first: the same bytes.
    if (!existsSync(firstBundle)) throw error
    rmSync(building, { recursive: true, force: true })
  }
}

if (!existsSync(tsconfig)) {
  const paths = Object.fromEntries(Object.entries(bundled).map(([specifier, name]) => [specifier, [join(dir, `${name}.mjs`)]]))
  const writing = `${tsconfig}.${process.pid}`
  writeFileSync(writing, JSON.stringify({ extends: join(root, 'tsconfig.json'), compilerOptions: { baseUrl: root, paths } }))
  renameSync(writing, tsconfig)
}

register({ tsconfig })
