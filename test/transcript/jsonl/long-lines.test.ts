// A transcript line's size is bounded (issue 10, item 6): a line longer than
// maxLineBytes is never held in memory; it still takes its place in the seq
// order, as one entry marked too large (parsed:false), and the entries around
// it keep theirs, on a cold build, in pages and on the live tail.
import { afterAll, afterEach, describe, expect, test } from 'bun:test'
import { appendFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { JsonlFiles } from '../../../src/transcript/jsonl/timeline'

import { MAX_LINE_BYTES } from '../../../src/transcript/jsonl/jsonl-file'
import { countClaudeLine, normalizeClaudeLine } from '../../../src/transcript/kinds/claude/normalize'
import { ADMIN, FrameQueue, startBridge, tempDir, waitFor, type Bridge } from '../../support/harness'
import { assistantLine, claudeSession } from '../../support/claude-home'

/** this file's JSONL files: its own registry, as each app has its own */
const jsonl = new JsonlFiles()

afterAll(() => jsonl.drop())

const CAP = 64 * 1024
const long = (bytes: number) => assistantLine(999, 'y'.repeat(bytes))

describe('the JSONL engine', () => {
  test('cold build: the long line is one too-large entry between its neighbours; no buffer grew past the cap; the counter stays trusted', async () => {
    const path = join(tempDir(), 's.jsonl')
    writeFileSync(path, [assistantLine(1, 'a'), long(1024 * 1024), assistantLine(3, 'c')].join('\n') + '\n')
    const distrusted = jsonl.counters.counterDistrusted
    jsonl.counters.maxLineBuffer = 0
    const tl = await jsonl.acquire(path, normalizeClaudeLine, { count: countClaudeLine, maxLineBytes: CAP, watch: false })
    try {
      expect(tl.total()).toBe(3)
      const entries = await tl.read(1, 3)
      expect(entries.map((e) => [e.seq, e.parsed])).toEqual([
        [1, true],
        [2, false],
        [3, true],
      ])
      expect(entries[1]).toMatchObject({ role: 'system', kind: 'message', parsed: false })
      expect(entries[1].text).toMatch(/^\[transcript line too large to show: \d+ bytes\]$/)
      expect(entries[2].text).toContain('3 c')
      expect(jsonl.counters.maxLineBuffer).toBeLessThanOrEqual(CAP)
      expect(jsonl.counters.counterDistrusted).toBe(distrusted)
      // a page read straight at it, and one that starts after it
      expect((await tl.read(2, 2)).map((e) => e.seq)).toEqual([2])
      expect((await tl.read(3, 3)).map((e) => e.seq)).toEqual([3])
    } finally {
      tl.release()
    }
  })

  test('live tail: a long line written in pieces becomes one too-large entry once complete; the next line gets the next seq', async () => {
    const path = join(tempDir(), 's.jsonl')
    writeFileSync(path, assistantLine(1, 'a') + '\n')
    const tl = await jsonl.acquire(path, normalizeClaudeLine, { count: countClaudeLine, maxLineBytes: CAP, watch: false, pollMs: 20 })
    const grown: { seq: number; parsed: boolean }[] = []
    const off = tl.onGrow((es) => grown.push(...es.map((e) => ({ seq: e.seq, parsed: e.parsed }))))
    try {
      const text = long(300 * 1024)
      for (let i = 0; i < text.length; i += 50 * 1024) {
        appendFileSync(path, text.slice(i, i + 50 * 1024))
        await tl.read(1, 1) // let a poll or two see the half-written line
        await Bun.sleep(30)
      }
      expect(tl.total()).toBe(1) // not complete yet: nothing to show
      appendFileSync(path, '\n' + assistantLine(3, 'c') + '\n')
      await waitFor(() => tl.total() === 3, 5000, 'the completed lines')
      await waitFor(() => grown.length === 2, 5000, 'the live entries')
      expect(grown).toEqual([
        { seq: 2, parsed: false },
        { seq: 3, parsed: true },
      ])
    } finally {
      off()
      tl.release()
    }
  })
})

describe('through the bridge, at the default cap', () => {
  let b: Bridge | undefined
  afterEach(async () => {
    await b?.stop()
    b = undefined
  })

  test(`a ${MAX_LINE_BYTES / 1024 / 1024 + 4} MB line: the backlog has it as one too-large entry with its seq`, async () => {
    const s = claudeSession(2)
    appendFileSync(s.file, long(MAX_LINE_BYTES + 4 * 1024 * 1024) + '\n' + assistantLine(4, 'after') + '\n')
    b = await startBridge({ homes: { claudeDir: s.claudeDir }, state: { panes: [s.pane] } })
    const counters = b.app.decorator.jsonl.counters // the bridge's own files
    const q = new FrameQueue(`${b.wsBase}/agent-transcript?pane=w1:p2&token=${ADMIN}`)
    const frames = await q.until((f) => f.type === 'backlog_complete', 20_000)
    const entries = frames.filter((f) => f.type === 'entry').map((f) => f.entry)
    expect(entries.map((e) => [e.seq, e.parsed])).toEqual([
      [1, true],
      [2, true],
      [3, false],
      [4, true],
    ])
    expect(entries[2].text).toStartWith('[transcript line too large to show: ')
    expect(counters.maxLineBuffer).toBeLessThanOrEqual(MAX_LINE_BYTES)
    q.close()
  }, 30_000)
})
