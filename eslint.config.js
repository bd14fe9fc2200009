import neostandard, { plugins } from 'neostandard'

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
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }]
    }
  }
]
