// Session files are read only through real paths inside the agents' own
// directories (issue 10, item 11): a session file replaced by a symlink to a
// file elsewhere is refused, before the socket opens and while it streams.
import { afterEach, expect, test } from 'bun:test'
import { renameSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ADMIN, FrameQueue, WS_HANDSHAKE, startBridge, tempDir, waitFor, type Bridge } from '../support/harness'
import { assistantLine, claudeSession } from './helpers'

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
