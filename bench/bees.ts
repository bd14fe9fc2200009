/*
 * The Bee speed rows alone (bench/bee-speed.ts), without the servers `npm run bench` starts: seconds, not minutes.
 * `npm run bench:bees` builds dist/ first (the rows time the built functions) and prints the table;
 * `--rounds N` sets the interleaved rounds (default 21), `--only WORD` keeps the rows whose title has it.
 */
import { parseArgs } from 'node:util'
import { beeSpeed } from './bee-speed.js'
import { beeSpeedTable } from './report.js'

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '21' }, only: { type: 'string' } } })
const rounds = Number(values.rounds)
if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a positive integer, got ${values.rounds}`)
const only = values.only
const rows = await beeSpeed((title) => only === undefined || title.includes(only), rounds)
console.log([`${rounds} interleaved rounds, CPU time, medians (bench/bee-speed.ts)`, '', ...beeSpeedTable(rows)].join('\n'))
