// Summarises a V8 .cpuprofile (from `node --cpu-prof`, e.g. `npm run bench -- --only paid --cpu-prof DIR`):
// the functions and the packages with the most self time.
// Usage: tsx bench/cpu-profile.ts FILE.cpuprofile [TOP]
import { readFileSync } from 'node:fs'

interface ProfileNode {
  id: number
  callFrame: { functionName: string, url: string, lineNumber: number }
  children?: number[]
}

interface Profile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

/** Who owns the code: an npm package, Node itself, one of Apiary's top folders, or V8's pseudo-frames such as (garbage collector). */
function owner ({ url, functionName }: ProfileNode['callFrame']): string {
  if (url === '') return functionName.startsWith('(') ? functionName : 'V8 / native'
  const packageName = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1]
  if (packageName !== undefined) return packageName
  if (url.startsWith('node:')) return 'node core'
  const own = /\/dist\/([^/]+)\//.exec(url)?.[1]
  return own === undefined ? url : `apiary ${own}/`
}

function where ({ url, lineNumber }: ProfileNode['callFrame']): string {
  if (url === '') return ''
  const short = url.replace(/^file:\/\/.*?\/(node_modules|dist)\//, '$1/')
  return `${short}:${lineNumber + 1}`
}

function table (title: string, totals: Map<string, number>, all: number, top: number): string[] {
  const rows = [...totals].sort((a, b) => b[1] - a[1]).slice(0, top)
  return [
    `${title}`,
    ...rows.map(([name, micros]) => `${(100 * micros / all).toFixed(1).padStart(6)} %  ${(micros / 1000).toFixed(0).padStart(7)} ms  ${name}`),
    ''
  ]
}

const [file, topArgument] = process.argv.slice(2)
if (file === undefined) {
  console.error('Usage: tsx bench/cpu-profile.ts FILE.cpuprofile [TOP]')
  process.exit(2)
}
const top = Number(topArgument ?? 25)
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
const nodes = new Map(profile.nodes.map((node) => [node.id, node]))

// A sample stands for the time until the next one.
const selfMicros = new Map<number, number>()
profile.samples.forEach((id, i) => {
  selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0))
})

/**
 * Self time of each node plus that of everything it calls, summed per function of Apiary's own code (each sample
 * counted once per function, however deep the recursion): which step of a request costs what.
 */
function ownInclusive (): Map<string, number> {
  const totals = new Map<string, number>()
  const root = profile.nodes[0]
  if (root === undefined) return totals
  const visit = (node: ProfileNode, open: Set<string>): number => {
    let micros = selfMicros.get(node.id) ?? 0
    const { callFrame } = node
    const key = owner(callFrame).startsWith('apiary ') ? `${callFrame.functionName || '(anonymous)'}  ${where(callFrame)}` : null
    const entered = key !== null && !open.has(key)
    if (entered) open.add(key)
    for (const child of node.children ?? []) micros += visit(nodes.get(child) as ProfileNode, open)
    if (entered) {
      open.delete(key)
      totals.set(key, (totals.get(key) ?? 0) + micros)
    }
    return micros
  }
  visit(root, new Set())
  return totals
}

const byFunction = new Map<string, number>()
const byOwner = new Map<string, number>()
let all = 0
let idle = 0
for (const [id, micros] of selfMicros) {
  const frame = (nodes.get(id) as ProfileNode).callFrame
  all += micros
  if (frame.functionName === '(idle)') idle += micros
  const name = `${frame.functionName === '' ? '(anonymous)' : frame.functionName}  ${where(frame)}  [${owner(frame)}]`
  byFunction.set(name, (byFunction.get(name) ?? 0) + micros)
  byOwner.set(owner(frame), (byOwner.get(owner(frame)) ?? 0) + micros)
}

console.log(`${file}: ${(all / 1e6).toFixed(1)} s profiled, ${(100 * idle / all).toFixed(1)} % idle\n`)
console.log([
  ...table('Self time by package / folder', byOwner, all, top),
  ...table('Self time by function', byFunction, all, top),
  ...table('Inclusive time of Apiary\'s own functions', ownInclusive(), all, top)
].join('\n'))
