// Session files are read only through real paths inside the agents' own
// directories (issue 10, item 11): a session file replaced by a symlink to a
// file elsewhere is refused, before the socket opens and while it streams; the
// subagent roster's reads of the parent and of meta.json follow the same rule.
import { afterEach, describe, expect, test } from 'bun:test'
import { readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { ADMIN, FrameQueue, WS_HANDSHAKE, startBridge, tempDir, waitFor, type Bridge } from '../../support/harness'
import { assistantLine, claudeHome, claudeSession, paneOn } from '../../support/claude-home'
import { subagentsDirOf } from '../../../src/transcript/kinds/claude/roster-watch'

let b: Bridge | undefined
afterEach(async () => {
  await b?.stop()
  b = undefined
})

/** A file outside every agent directory that reads as a transcript: what must never be streamed. */
function secretFile(): string {
  const f = join(tempDir(), 'secret.jsonl')
  writeFileSync(f, [1, 2, 3].map((i) => assistantLine(100 + i, `SECRET-${i}`)).join('\n') + '\n')
  return f
}

test('a session file that is a symlink leaving the Claude dir: 500 read transcript failed, nothing of it sent', async () => {
  const s = claudeSession(2)
  renameSync(s.file, s.file + '.bak')
  symlinkSync(secretFile(), s.file)
  b = await startBridge({ homes: { claudeDir: s.claudeDir }, state: { panes: [s.pane] } })
  const r = await fetch(`${b.base}/agent-transcript?pane=w1:p2&token=${ADMIN}`, { headers: WS_HANDSHAKE })
  expect(r.status).toBe(500)
  expect(await r.text()).toBe('read transcript failed')
  expect(b.logs.join('\n')).toContain('outside')
})

test('a symlink that stays inside the Claude dir is followed', async () => {
  const s = claudeSession(2)
  renameSync(s.file, s.file + '.real')
  symlinkSync(s.file + '.real', s.file)
  b = await startBridge({ homes: { claudeDir: s.claudeDir }, state: { panes: [s.pane] } })
  const q = new FrameQueue(`${b.wsBase}/agent-transcript?pane=w1:p2&token=${ADMIN}`)
  const frames = await q.until((f) => f.type === 'backlog_complete')
  expect(frames.filter((f) => f.type === 'entry')).toHaveLength(2)
  q.close()
})

test('a session file swapped for an outside symlink while streaming: the stream sends nothing of it', async () => {
  const s = claudeSession(2)
  b = await startBridge({ homes: { claudeDir: s.claudeDir }, state: { panes: [s.pane] }, timing: { tailPollMs: 30 } })
  const q = new FrameQueue(`${b.wsBase}/agent-transcript?pane=w1:p2&token=${ADMIN}`)
  await q.until((f) => f.type === 'backlog_complete')
  const link = s.file + '.link'
  symlinkSync(secretFile(), link)
  renameSync(link, s.file)
  await waitFor(() => b!.logs.some((l) => l.includes('outside')), 5000, 'the refusal to be logged')
  // whatever did arrive, none of it is the outside file
  const seen: string[] = []
  while (q.pending()) seen.push(JSON.stringify(await q.next()))
  expect(seen.join('\n')).not.toContain('SECRET')
  q.close()
})

// The subagent roster reads the parent session file and each agent's meta.json
// by their own paths: the same rule holds for them.
describe('the subagent roster', () => {
  const AGENT = 'a40c5c2a9babaf2e6' // "Survey build scripts" in cc-subagents

  /** Moves `file` outside the Claude dir, rewritten by `edit`, and leaves a symlink to it in its place. */
  function replaceWithOutsideLink(file: string, edit: (text: string) => string): void {
    const outside = join(tempDir(), 'outside-' + basename(file))
    writeFileSync(outside, edit(readFileSync(file, 'utf8')))
    renameSync(file, file + '.bak')
    symlinkSync(outside, file)
  }
  const rowsOf = (hello: any): string => JSON.stringify(hello.subagents ?? [])

  test('a meta.json that is a symlink leaving the Claude dir: its description is not read', async () => {
    const home = claudeHome('cc-subagents')
    const meta = join(subagentsDirOf(home.file), `agent-${AGENT}.meta.json`)
    replaceWithOutsideLink(meta, (t) => t.replace('Survey build scripts', 'SECRET-meta'))
    b = await startBridge({ homes: { claudeDir: home.dir }, state: { panes: [paneOn(home)] } })
    const q = new FrameQueue(`${b.wsBase}/agent-transcript?pane=w1:p2&token=${ADMIN}`)
    const hello = await q.next()
    expect(hello.type).toBe('hello')
    // the row is there (its transcript is inside), its text is not the outside file's
    expect(rowsOf(hello)).toContain(AGENT)
    expect(rowsOf(hello)).not.toContain('SECRET')
    q.close()
  })

  test('a parent session that is a symlink leaving the Claude dir: a subagent stream does not fold it', async () => {
    const home = claudeHome('cc-subagents')
    replaceWithOutsideLink(home.file, (t) => t.replaceAll('Survey build scripts', 'SECRET-parent'))
    b = await startBridge({ homes: { claudeDir: home.dir }, state: { panes: [paneOn(home)] } })
    const q = new FrameQueue(`${b.wsBase}/agent-transcript?pane=w1:p2&subagent=${AGENT}&token=${ADMIN}`)
    const frames = await q.until((f) => f.type === 'backlog_complete')
    expect(frames[0]!.type).toBe('hello')
    expect(JSON.stringify(frames)).not.toContain('SECRET')
    expect(b.logs.join('\n')).toContain('outside')
    q.close()
  })

  test('/snapshot counting subagents of an outside parent: refused and logged', async () => {
    const home = claudeHome('cc-subagents')
    replaceWithOutsideLink(home.file, (t) => t)
    b = await startBridge({ homes: { claudeDir: home.dir }, state: { panes: [paneOn(home)] } })
    const r = await b.get('/snapshot')
    expect(r.status).toBe(200)
    expect(b.logs.join('\n')).toMatch(/subagent roster for .* outside/)
  })
})
