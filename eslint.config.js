import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript'
import { importX } from 'eslint-plugin-import-x'
import neostandard, { plugins } from 'neostandard'

// What src/core/ may not import: it is plain TypeScript that every door (HTTP, MCP, A2A, the workers) shares.
const FORBIDDEN_IN_CORE = [
  { group: ['fastify', '@fastify/*', 'fastify-plugin', 'light-my-request'], message: 'src/core/ has no Fastify in it: the doors translate to it.' },
  { regex: '(^|/)(http|plugins|bees)/', message: 'Imports run one way: src/http/, plugins/ and bees/ use src/core/, not the reverse.' },
  { regex: '(^|/)(app|server)\\.js$', message: 'src/app.ts builds the app and src/server.ts owns the process: nothing below them imports either.' }
]

export default [
  ...neostandard({
    ts: true,
    ignores: ['dist/**', 'coverage/**', 'bench/results/**', 'eval/data/**']
  }),
  {
    plugins: { '@typescript-eslint': plugins['typescript-eslint'].plugin },
    rules: {
      // TypeBox's idiom: a schema const and its Static type share one name (`const Wallet = …; type Wallet = …`).
      '@typescript-eslint/no-redeclare': 'off',
      // `void promise` marks a promise deliberately not awaited (signal handlers, timers).
      'no-void': ['error', { allowAsStatement: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      // The code's own width: prose comments wrap near 120, code runs to 160 (p99 of the tree when this was set). A
      // message, a URL or a pattern is not broken to fit: a string split in two is harder to grep for than a long line.
      '@stylistic/max-len': ['error', { code: 160, ignoreUrls: true, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true }]
    }
  },
  {
    // The layering docs/architecture.md promises: no import cycles in the code that ships, and (below) a core free of
    // Fastify and the doors. import-x skips `import type`; dependency-cruiser, after ESLint in `npm run lint`, also
    // refuses a cycle of types, which is still two files that must change together (.dependency-cruiser.cjs).
    files: ['src/**/*.ts', 'plugins/**/*.ts', 'bees/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })]
    },
    rules: { 'import-x/no-cycle': ['error', { allowUnsafeDynamicCyclicDependency: false }] }
  },
  {
    files: ['src/core/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: FORBIDDEN_IN_CORE }] }
  }
]
