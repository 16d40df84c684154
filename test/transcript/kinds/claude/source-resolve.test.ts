// Resolution of a Claude pane's transcript: direct hit, encoding drift (glob),
// newest-matching by recorded cwd, 404 / 500, hostile session ids, and the
// session id the 2 s rotation poll sees (cc-clear's /clear rotation).
import { afterEach, describe, expect, test } from 'bun:test'
import { appendFileSync, mkdirSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createClaudeSource } from '../../../../src/transcript/kinds/claude/source'
import { encodeClaudeCwd, isSafeSessionId, locateClaudeSession, recordedCwd } from '../../../../src/transcript/kinds/claude/source-resolve'
import type { Resolved, Unresolved } from '../../../../src/transcript/source'
import { claudePane, expectedEntryIds, fileLines } from './sessions'
import { claudeHome, emptyClaudeHome, type ClaudeHome, type EmptyClaudeHome } from '../../../support/claude-home'

const WORKING_SID = 'ae22f811-9570-4ffe-b8a7-5db178f36de1'
const WORKING_CWD = '/home/me/cc-working/proj'
const CLEAR_OLD = 'a229ad4a-0ede-46ed-be43-0650f48e0bd1'
const CLEAR_NEW = 'a608b35b-2d46-4cc4-aae3-7403f541c80c'
const CLEAR_CWD = '/home/me/cc-clear/proj'

const homes: EmptyClaudeHome[] = []
const held: Resolved[] = []
function home(scenario: string): ClaudeHome {
  const h = claudeHome(scenario)
  homes.push(h)
  return h
}
function emptyHome(): EmptyClaudeHome {
  const h = emptyClaudeHome()
  homes.push(h)
  return h
}
afterEach(() => {
  for (const r of held.splice(0)) r.timeline.release()
  for (const h of homes.splice(0)) h.cleanup()
})

function expectResolved(r: Resolved | Unresolved): Resolved {
  if (!r.ok) throw new Error(`expected a transcript, got ${r.status} ${r.body}`)
  held.push(r)
  return r
}

const quiet = () => {}

/** A session file for `cwd` in `dir`, modified at `mtimeSec`. */
function writeSession(dir: string, sid: string, cwd: string, mtimeSec: number): string {
  mkdirSync(dir, { recursive: true })
  const path = join(dir, `${sid}.jsonl`)
  writeFileSync(
    path,
    [
      JSON.stringify({ type: 'mode', mode: 'normal', sessionId: sid }),
      JSON.stringify({ type: 'user', uuid: `u-${sid}`, cwd, sessionId: sid, message: { role: 'user', content: `hello from ${sid}` } }),
    ].join('\n') + '\n',
  )
  utimesSync(path, mtimeSec, mtimeSec)
  return path
}

describe('pure helpers', () => {
  test('the contract encoding: every / and . becomes -', () => {
    expect(encodeClaudeCwd('/Users/x/.herdr/worktrees/foo')).toBe('-Users-x--herdr-worktrees-foo')
    expect(encodeClaudeCwd('/home/me/cc-working/proj')).toBe('-home-me-cc-working-proj')
  })

  test('session ids: UUID-ish only', () => {
    for (const ok of [WORKING_SID, 'abc', 'A-1']) expect(isSafeSessionId(ok)).toBe(true)
    for (const bad of ['', '../../etc/passwd', '/etc/passwd', '..', 'a/b', 'a.b', '%2e%2e', 'x'.repeat(129), 'a\0b', ' a', 42, undefined, null]) {
      expect(isSafeSessionId(bad)).toBe(false)
    }
  })

  test('recorded cwd: the first record carrying one; garbage lines skipped', () => {
    expect(recordedCwd(['{"type":"mode"}', '{"cwd":', 'not json "cwd"', '{"type":"user","cwd":"/a/b"}', '{"cwd":"/c"}'])).toBe('/a/b')
    expect(recordedCwd(['{"type":"mode"}', '[1,2]', '\u0000\u0001"cwd"'])).toBeUndefined()
    expect(recordedCwd(['{"cwd":42}'])).toBeUndefined()
  })
})

describe('resolve', () => {
  test('direct hit: <encoded-cwd>/<session>.jsonl, timeline over the whole file', async () => {
    const h = home('cc-working')
    const src = createClaudeSource(h.homes, { log: quiet })
    const file = join(h.proj, `${WORKING_SID}.jsonl`)
    const located = await locateClaudeSession(h.dir, claudePane(WORKING_CWD, WORKING_SID))
    expect(located).toEqual({ path: file, sessionId: WORKING_SID, via: 'direct' })
    const r = expectResolved(await src.resolve(claudePane(WORKING_CWD, WORKING_SID), {}))
    expect(r.sessionId).toBe(WORKING_SID)
    const want = expectedEntryIds(file)
    expect(want.length).toBeGreaterThan(3)
    expect(r.timeline.total()).toBe(want.length)
    expect((await r.timeline.read(1, want.length)).map((e) => e.id)).toEqual(want)
    // a session that delegated nothing has no roster
    expect(await r.roster!()).toBeUndefined()
  })

  test('encoding drift: a file under an oddly named project dir is found by session id', async () => {
    const h = home('cc-working')
    const odd = join(h.dir, 'projects', '-home-me-cc_working-proj-renamed')
    mkdirSync(odd)
    renameSync(join(h.proj, `${WORKING_SID}.jsonl`), join(odd, `${WORKING_SID}.jsonl`))
    rmSync(h.proj, { recursive: true })
    const located = await locateClaudeSession(h.dir, claudePane(WORKING_CWD, WORKING_SID))
    expect(located).toEqual({ path: join(odd, `${WORKING_SID}.jsonl`), sessionId: WORKING_SID, via: 'glob' })
    const r = expectResolved(await createClaudeSource(h.homes, { log: quiet }).resolve(claudePane(WORKING_CWD, WORKING_SID), {}))
    expect(r.sessionId).toBe(WORKING_SID)
    expect(r.timeline.total()).toBe(expectedEntryIds(join(odd, `${WORKING_SID}.jsonl`)).length)
  })

  test('encoding drift: the glob works without any cwd too', async () => {
    const h = home('cc-working')
    const located = await locateClaudeSession(h.dir, claudePane(undefined, WORKING_SID))
    expect(located?.via).toBe('glob')
    expect(located?.sessionId).toBe(WORKING_SID)
  })

  test('unknown session id: newest file whose recorded cwd is the pane cwd; a newer file of another cwd is skipped', async () => {
    const h = home('cc-working')
    const now = Math.floor(Date.now() / 1000)
    const real = join(h.proj, `${WORKING_SID}.jsonl`)
    utimesSync(real, now - 100, now - 100)
    writeSession(h.proj, 'bbbbbbbb-0000-0000-0000-000000000001', '/somewhere/else', now) // newer, other cwd
    writeSession(h.proj, 'cccccccc-0000-0000-0000-000000000002', WORKING_CWD, now - 500) // same cwd, older
    writeFileSync(join(h.proj, 'garbage.jsonl'), '\u0000\u0001binary\n{"cwd":\n') // newest, unreadable head
    const src = createClaudeSource(h.homes, { log: quiet })
    for (const agent of [claudePane(WORKING_CWD, undefined), claudePane(WORKING_CWD, 'dddddddd-0000-0000-0000-00000000dead')]) {
      const located = await locateClaudeSession(h.dir, agent)
      expect(located).toEqual({ path: real, sessionId: WORKING_SID, via: 'newest-matching' })
      const r = expectResolved(await src.resolve(agent, {}))
      expect(r.sessionId).toBe(WORKING_SID)
    }
    // the same-cwd file becomes the newest → it wins
    utimesSync(join(h.proj, 'cccccccc-0000-0000-0000-000000000002.jsonl'), now + 10, now + 10)
    expect(await src.currentSession(claudePane(WORKING_CWD, undefined))).toBe('cccccccc-0000-0000-0000-000000000002')
  })

  test("the CLI's stricter encoding (every non-alphanumeric → -) is a direct hit too", async () => {
    const h = emptyHome()
    const cwd = '/home/me/my_proj.v2 x'
    // the contract rule gives -home-me-my_proj-v2 x; the CLI writes -home-me-my-proj-v2-x
    const sid = '12121212-0000-0000-0000-000000000001'
    writeSession(join(h.dir, 'projects', '-home-me-my-proj-v2-x'), sid, cwd, Math.floor(Date.now() / 1000))
    expect((await locateClaudeSession(h.dir, claudePane(cwd, sid)))?.via).toBe('direct')
    expect((await locateClaudeSession(h.dir, claudePane(cwd, undefined)))?.sessionId).toBe(sid)
  })

  test('a cwd over 200 characters: the hashed project dir is found by its prefix', async () => {
    const h = emptyHome()
    const cwd = '/home/me/' + 'deep/'.repeat(45) + 'proj'
    const dirName = cwd.replace(/[^A-Za-z0-9]/g, '-').slice(0, 200) + '-1x2y3z'
    const sid = '34343434-0000-0000-0000-000000000002'
    writeSession(join(h.dir, 'projects', dirName), sid, cwd, Math.floor(Date.now() / 1000))
    expect(await locateClaudeSession(h.dir, claudePane(cwd, sid))).toMatchObject({ sessionId: sid, via: 'direct' })
    expect(await locateClaudeSession(h.dir, claudePane(cwd, undefined))).toMatchObject({ sessionId: sid, via: 'newest-matching' })
  })

  test('cwd with a trailing slash matches the recorded cwd', async () => {
    const h = home('cc-working')
    expect(await createClaudeSource(h.homes, { log: quiet }).currentSession(claudePane(WORKING_CWD + '/', undefined))).toBe(WORKING_SID)
  })

  test('nothing to open → 404 "no transcript file for pane"', async () => {
    const empty = emptyHome()
    const h = home('cc-working')
    const want: Unresolved = { ok: false, status: 404, body: 'no transcript file for pane' }
    expect(await createClaudeSource(empty.homes, { log: quiet }).resolve(claudePane(WORKING_CWD, WORKING_SID), {})).toEqual(want)
    const src = createClaudeSource(h.homes, { log: quiet })
    // another project, no session id
    expect(await src.resolve(claudePane('/home/me/other', undefined), {})).toEqual(want)
    // unknown id in another project: glob misses, the other project has no dir
    expect(await src.resolve(claudePane('/home/me/other', 'eeeeeeee-0000-0000-0000-000000000000'), {})).toEqual(want)
    // neither cwd nor session id
    expect(await src.resolve(claudePane(undefined, undefined), {})).toEqual(want)
    // a relative cwd is not a cwd
    expect(await src.resolve(claudePane('home/me/cc-working/proj', undefined), {})).toEqual(want)
    expect(await src.currentSession(claudePane('/home/me/other', undefined))).toBeUndefined()
  })

  test('a read failure other than "not there" → 500 "read transcript failed", logged', async () => {
    const h = home('cc-working')
    const logs: string[] = []
    const src = createClaudeSource(h.homes, { log: (m) => logs.push(m) })
    const loop = join(h.proj, 'ffffffff-0000-0000-0000-00000000100p.jsonl')
    symlinkSync(loop, loop) // stat → ELOOP
    const r = await src.resolve(claudePane(WORKING_CWD, 'ffffffff-0000-0000-0000-00000000100p'), {})
    expect(r).toEqual<Resolved | Unresolved>({ ok: false, status: 500, body: 'read transcript failed' })
    expect(logs.some((l) => l.includes('ELOOP') || l.includes('loop'))).toBe(true)
    // the rotation poll never throws: it just has no session
    expect(await src.currentSession(claudePane(WORKING_CWD, 'ffffffff-0000-0000-0000-00000000100p'))).toBeUndefined()
  })

  test('hostile session ids from herdr are unknown: never joined into a path', async () => {
    const h = home('cc-working')
    // Files a traversal would reach if the value were used in a path:
    // projects/<encoded>/../../evil.jsonl and /etc/passwd-ish targets.
    writeSession(h.dir, 'evil', WORKING_CWD, Math.floor(Date.now() / 1000) + 100)
    writeSession(join(h.dir, 'projects'), 'evil', WORKING_CWD, Math.floor(Date.now() / 1000) + 100)
    const src = createClaudeSource(h.homes, { log: quiet })
    for (const value of ['../../evil', '../evil', '../../etc/passwd', '/etc/passwd', `${WORKING_SID}/../../../evil`, '..', `${WORKING_SID}.jsonl`]) {
      // with the pane cwd: treated as unknown → the newest matching file of the project, the real one
      const r = expectResolved(await src.resolve(claudePane(WORKING_CWD, value), {}))
      expect(r.sessionId).toBe(WORKING_SID)
      expect(await src.currentSession(claudePane(WORKING_CWD, value))).toBe(WORKING_SID)
      // without a cwd there is no fallback: 404, not the evil file
      expect(await src.resolve(claudePane(undefined, value), {})).toEqual<Resolved | Unresolved>({
        ok: false,
        status: 404,
        body: 'no transcript file for pane',
      })
    }
  })

  test('currentSession follows herdr across /clear (cc-clear has both session files)', async () => {
    const h = home('cc-clear')
    const src = createClaudeSource(h.homes, { log: quiet })
    expect(fileLines(join(h.proj, `${CLEAR_NEW}.jsonl`)).some((l) => l.includes('<command-name>/clear</command-name>'))).toBe(true)
    expect(await src.currentSession(claudePane(CLEAR_CWD, CLEAR_OLD))).toBe(CLEAR_OLD)
    expect(await src.currentSession(claudePane(CLEAR_CWD, CLEAR_NEW))).toBe(CLEAR_NEW)
    // resolve agrees, and each session has its own timeline
    const oldR = expectResolved(await src.resolve(claudePane(CLEAR_CWD, CLEAR_OLD), {}))
    const newR = expectResolved(await src.resolve(claudePane(CLEAR_CWD, CLEAR_NEW), {}))
    expect([oldR.sessionId, newR.sessionId]).toEqual([CLEAR_OLD, CLEAR_NEW])
    expect(newR.timeline.total()).toBe(expectedEntryIds(join(h.proj, `${CLEAR_NEW}.jsonl`)).length)
    expect(oldR.timeline.total()).toBe(expectedEntryIds(join(h.proj, `${CLEAR_OLD}.jsonl`)).length)
    // herdr not (yet) reporting an id: the most recently written file with this cwd
    const now = Math.floor(Date.now() / 1000)
    utimesSync(join(h.proj, `${CLEAR_OLD}.jsonl`), now - 60, now - 60)
    utimesSync(join(h.proj, `${CLEAR_NEW}.jsonl`), now, now)
    expect(await src.currentSession(claudePane(CLEAR_CWD, undefined))).toBe(CLEAR_NEW)
    // the new file disappears (say the rotation was undone): the direct hit misses, the old file is the newest match
    rmSync(join(h.proj, `${CLEAR_NEW}.jsonl`))
    expect(await src.currentSession(claudePane(CLEAR_CWD, CLEAR_NEW))).toBe(CLEAR_OLD)
  })

  test('a file appearing later is picked up by the next poll (no negative caching)', async () => {
    const h = home('cc-working')
    const src = createClaudeSource(h.homes, { log: quiet })
    const sid = '99999999-0000-0000-0000-000000000009'
    const fresh = claudePane(WORKING_CWD, sid)
    expect(await src.currentSession(fresh)).toBe(WORKING_SID) // unmatched id → newest matching
    writeSession(h.proj, sid, WORKING_CWD, Math.floor(Date.now() / 1000) - 1000)
    expect(await src.currentSession(fresh)).toBe(sid) // direct hit, however old
    appendFileSync(join(h.proj, `${sid}.jsonl`), 'garbage\n')
    const r = expectResolved(await src.resolve(fresh, {}))
    expect(r.timeline.total()).toBe(expectedEntryIds(join(h.proj, `${sid}.jsonl`)).length)
  })
})
