import { test } from 'tap'
import { startFakeSite } from '../fake-site.js'
import { adminHeaders } from '../helper.js'
import { sqliteBackend } from '../databases.js'
import { startServer } from '../server-process.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A lease of 3 s: the restarted server takes the dead run's job over soon after it starts. */
const env = {
  EGRESS_ALLOWLIST: '127.0.0.1',
  PREPARATION_LEASE_SECONDS: '3',
  PREPARATION_POLL_MS: '100',
  PREPARATION_PAGE_TIMEOUT_MS: '2000',
  PREPARATION_PAGE_MAX_BYTES: '1048576'
}

interface Prepared { status: string, attempts: number, progress: { stage: string, pagesFetched: number }, outputFiles: { llmsTxt: string } | null }

test('a server killed with SIGKILL in the middle of a preparation: the restarted one resumes the job and completes it', async (t) => {
  const database = sqliteBackend()
  t.teardown(database.drop)
  const site = await startFakeSite({ pageDelayMs: 400 })
  t.teardown(site.close)

  const first = await startServer({ DATABASE_URL: database.url, ...env })
  t.teardown(() => first.stop())
  const post = (url: string, path: string, body: unknown, headers: Record<string, string>) =>
    fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
  const publisher = await (await post(first.url, '/api/publishers', { email: 'crumb@example.com', name: 'Crumb' }, adminHeaders)).json() as { key: string }
  const headers = { authorization: `Bearer ${publisher.key}` }
  const submitted = await post(first.url, '/api/preparations', {
    name: 'crumb', websiteUrl: `${site.url}/`, businessName: 'Crumb & Co', description: 'A bakery in Springfield.', primaryServices: ['Wedding cakes']
  }, headers)
  t.equal(submitted.status, 202)
  const { id } = await submitted.json() as { id: string }
  const read = async (url: string) => await (await fetch(`${url}/api/preparations/${id}`, { headers })).json() as Prepared

  let seen = await read(first.url)
  while (!(seen.status === 'running' && seen.progress.stage === 'crawling' && seen.progress.pagesFetched >= 1)) {
    if (seen.status !== 'queued' && seen.status !== 'running') throw new Error(`the job ended (${seen.status}) before the kill`)
    await sleep(50)
    seen = await read(first.url)
  }
  await first.stop('SIGKILL')
  t.pass(`killed while ${seen.progress.pagesFetched} page(s) were fetched`)

  const second = await startServer({ DATABASE_URL: database.url, ...env })
  t.teardown(() => second.stop())
  const deadline = Date.now() + 60_000
  let after = await read(second.url)
  while (after.status !== 'completed' && Date.now() < deadline) {
    await sleep(200)
    after = await read(second.url)
  }
  t.match(after, { status: 'completed', attempts: 2, progress: { stage: 'done' } }, 'the job ran again, once, and completed')
  t.match(after.outputFiles?.llmsTxt, /^# Crumb & Co\n/)
})
