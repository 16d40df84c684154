// Files in the agents' session directories that are not sessions of theirs
// (docs/bridge.md "Every past conversation"): a named pipe made where a session
// file goes, and a session file or a whole project folder that is a symlink to
// a file outside the agent's directory. An agent in a pane can make either; the
// listing, the search index and the session socket must neither hang on them nor
// show what they point at.
import { afterEach, expect, test } from 'bun:test'
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { ADMIN, ROOT, startBridge, tempDir, waitFor, WS_HANDSHAKE, type Bridge } from '../support/harness'
import { historyHome, piUserLine } from '../support/history-home'

let b: Bridge | undefined
afterEach(async () => {
  await b?.stop()
  b = undefined
})

const bridgeOn = (h: ReturnType<typeof historyHome>) =>
  startBridge({
    homes: h.homes,
    deps: { projectRoots: [h.home], search: { path: join(tempDir('gothalo-outside-search-'), 'search.db'), startAfterMs: 0, pollMs: 50 } },
  })

test('a named pipe where a session file goes (claude, pi, a codex .zst): listed sessions and search answer, never waiting on it', async () => {
  const h = historyHome()
  for (const fifo of [
    join(dirname(h.files.claude), 'ffffffff-0000-4000-8000-000000000000.jsonl'),
    join(dirname(h.files.pi), '2026-12-03T00-00-00-000Z_01a30000-0000-7000-8000-0000000000ff.jsonl'),
    join(dirname(h.files.codex[0]!), 'rollout-2026-12-02T00-00-00-01a30000-0000-7000-8000-0000000000ff.jsonl.zst'),
  ])
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0)
  // first in a process of its own: a listing that waits on a pipe would hang this one (the open holds the thread)
  const listing = spawnSync(
    process.execPath,
    [
      '-e',
      `const { SessionFinder } = await import(${JSON.stringify(join(ROOT, 'src/projects/listing.ts'))}); console.log((await new SessionFinder(JSON.parse(process.argv[1])).find()).length)`,
      JSON.stringify(h.homes),
    ],
    { timeout: 4000, encoding: 'utf8' },
  )
  expect([listing.signal, listing.stdout.trim()]).toEqual([null, '6'])
  b = await bridgeOn(h)
  const r = await fetch(`${b.base}/sessions`, { headers: { authorization: `Bearer ${ADMIN}` }, signal: AbortSignal.timeout(5000) })
  const { sessions } = (await r.json()) as { sessions: { agent_kind: string }[] }
  expect(sessions.length).toBe(6)
  await waitFor(async () => {
    const a = (await b!.json('/search?q=zzzzzz')) as { indexed: { files: number; of: number } }
    return a.indexed.of === 6 && a.indexed.files === 6
  }, 10_000)
})

test('a session file, or a project folder, that is a symlink to a file outside the agent’s directory: not listed, its first prompt not shown, not opened', async () => {
  const h = historyHome()
  const id = '01a30000-0000-7000-8000-0000000000ee'
  const outside = join(tempDir('gothalo-outside-'), 'notes.jsonl')
  writeFileSync(
    outside,
    `${JSON.stringify({ type: 'session', version: 3, id, timestamp: '2026-12-03T00:00:00.000Z', cwd: h.dirs.pi })}\n${piUserLine(1, 'hunter2 zebracorn')}`,
  )
  symlinkSync(outside, join(dirname(h.files.pi), `2026-12-03T00-00-00-000Z_${id}.jsonl`))
  const claudeId = '7444533a-645f-44b8-9f33-73e27f0ddcee'
  const outDir = tempDir('gothalo-outside-dir-')
  writeFileSync(join(outDir, `${claudeId}.jsonl`), readFileSync(h.files.claude, 'utf8').replaceAll('7444533a-645f-44b8-9f33-73e27f0ddc04', claudeId))
  symlinkSync(outDir, join(h.homes.claudeDir, 'projects', 'elsewhere'))
  // the positive control: a link that stays inside the agent's directory is a session like any other
  const insideId = '01a30000-0000-7000-8000-0000000000ef'
  const kept = join(h.homes.piDir, 'kept', 'proj')
  mkdirSync(kept, { recursive: true })
  writeFileSync(
    join(kept, `${insideId}.jsonl`),
    `${JSON.stringify({ type: 'session', version: 3, id: insideId, timestamp: '2026-12-03T00:00:00.000Z', cwd: h.dirs.pi })}\n${piUserLine(1, 'kept inside')}`,
  )
  symlinkSync(join(kept, `${insideId}.jsonl`), join(dirname(h.files.pi), `2026-12-03T00-00-01-000Z_${insideId}.jsonl`))
  b = await bridgeOn(h)
  const { sessions } = (await b.json('/sessions?limit=200')) as { sessions: { session_id: string; title: string }[] }
  expect(sessions.find((s) => s.session_id === insideId)?.title).toBe('kept inside')
  expect(sessions.map((s) => s.session_id)).not.toContain(id)
  expect(sessions.map((s) => s.session_id)).not.toContain(claudeId)
  expect(sessions.map((s) => s.title)).not.toContain('hunter2 zebracorn')
  // the index gets to its end (it did not count them and wait on them forever)
  await waitFor(async () => {
    const a = (await b!.json('/search?q=zebracorn')) as { results: unknown[]; indexed: { files: number; of: number } }
    return a.indexed.of === 7 && a.indexed.files === 7 && a.results.length === 0
  }, 10_000)
  for (const ref of [`pi:${id}`, `claude:${claudeId}`]) {
    const r = await fetch(`${b.base}/agent-transcript?session=${encodeURIComponent(ref)}`, { headers: { ...WS_HANDSHAKE, authorization: `Bearer ${ADMIN}` } })
    expect([ref, r.status, await r.text()]).toEqual([ref, 404, 'no such session'])
  }
})
