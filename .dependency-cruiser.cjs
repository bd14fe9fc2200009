// The layering docs/architecture.md promises, checked by `npm run lint` (dependency-cruiser): one execution core
// with no Fastify in it, doors that use it, and no import cycles anywhere in the code that ships.
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'A cycle makes a change in one file a change in all of them; move what both need into a file of its own.',
      from: { path: '^(src|plugins|bees)/' },
      to: { circular: true }
    },
    {
      name: 'core-without-fastify',
      severity: 'error',
      comment: 'src/core/ is plain TypeScript every door shares: HTTP, MCP, A2A and the workers translate to it.',
      from: { path: '^src/core/' },
      to: { path: '(^|/)node_modules/(fastify|@fastify/[^/]+|fastify-plugin|light-my-request)/' }
    },
    {
      name: 'core-without-doors',
      severity: 'error',
      comment: 'Imports run one way: src/app.ts wires plugins/, src/http/ and bees/, which use src/core/.',
      from: { path: '^src/core/' },
      to: { path: '^(src/http|plugins|bees)/|^src/(app|server)\\.ts$' }
    },
    {
      name: 'nothing-imports-the-app',
      severity: 'error',
      comment: 'src/app.ts builds the app and src/server.ts owns the process: nothing below them imports either.',
      from: { path: '^(src/(core|http)|plugins|bees)/' },
      to: { path: '^src/(app|server)\\.ts$' }
    }
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'] }
  }
}
