import { test } from 'tap'
import { preferred } from '../../src/http/accept.js'

test('the alternative wins only when the client ranks it higher or names it more specifically', async (t) => {
  const pick = (accept: string | undefined) => preferred(accept, 'application/json', 'text/markdown')
  t.equal(pick(undefined), 'application/json')
  t.equal(pick(''), 'application/json')
  t.equal(pick('text/markdown'), 'text/markdown')
  t.equal(pick('TEXT/Markdown; charset=utf-8'), 'text/markdown', 'case and parameters do not matter')
  t.equal(pick('text/*'), 'text/markdown')
  t.equal(pick('text/*, application/*'), 'application/json', 'equally specific and equally wanted: the usual type')
  t.equal(pick('text/markdown, application/json'), 'application/json', 'a tie keeps the usual type')
  t.equal(pick('text/markdown;q=0.9, application/json;q=0.8'), 'text/markdown')
  t.equal(pick('text/markdown;q=0, */*'), 'application/json', 'q=0 refuses it')
  t.equal(pick('text/markdown;q=abc'), 'application/json', 'a malformed quality counts as 0')
  t.equal(pick('nonsense, ,/,'), 'application/json')
})
