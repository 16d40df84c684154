// The roster watcher's fold at awkward chunk boundaries and with lines over
// the size cap: whatever the read steps, the roster equals a one-shot fold.
import { afterEach, describe, expect, test } from 'bun:test'
import { appendFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { RosterRegistry, discoverSubagentFiles, subagentsDirOf } from '../../../../src/transcript/kinds/claude/roster-watch'
import { fileLines } from './sessions'
import { claudeHome, type ClaudeHome } from '../../../support/claude-home'

const SID = '31768c85-8856-4ba3-9323-9014ac9e2d13'
const homes: ClaudeHome[] = []
afterEach(() => {
  for (const h of homes.splice(0)) h.cleanup()
})
function session(): { parent: string; lines: string[] } {
  const h = claudeHome('cc-subagents')
  homes.push(h)
  const parent = join(h.proj, `${SID}.jsonl`)
  return { parent, lines: fileLines(parent) }
}
const quiet = () => {}

describe('roster watcher fold', () => {
  test('the subagents dir sits beside the session file', () => {
    expect(subagentsDirOf('/x/p/abc.jsonl')).toBe('/x/p/abc/subagents')
  })

  test('discovery lists agent-<id>.jsonl only, ids exactly as named; a missing dir is empty', async () => {
    const { parent } = session()
    const found = await discoverSubagentFiles(subagentsDirOf(parent))
    expect([...found.keys()].sort()).toEqual(['a40c5c2a9babaf2e6', 'a4160e85bd33f35ac', 'a465d2df8f0764ced', 'a5dac6f262406d731', 'ab787ad1b496b62b0'])
    expect(found.get('a40c5c2a9babaf2e6')).toBe('agent-a40c5c2a9babaf2e6.jsonl')
    expect((await discoverSubagentFiles('/nonexistent/dir')).size).toBe(0)
  })

  test('any chunk size folds to the same roster', async () => {
    const { parent } = session()
    const reference = await new RosterRegistry({ log: quiet }).acquire(parent).watcher.roster()
    expect(reference!.length).toBe(5)
    for (const chunkBytes of [13, 64, 1000, 5137, 5138]) {
      const got = await new RosterRegistry({ log: quiet, limits: { chunkBytes } }).acquire(parent).watcher.roster()
      expect({ chunkBytes, got }).toEqual({ chunkBytes, got: reference })
    }
  })

  test('a line over the cap is skipped, and the lines after it still fold', async () => {
    const { parent, lines } = session()
    const reference = await new RosterRegistry({ log: quiet }).acquire(parent).watcher.roster()
    const longest = Math.max(...lines.map((l) => Buffer.byteLength(l)))
    // A huge line placed after GAMMA's completion notice (line 17): it re-reports GAMMA as
    // running, so folding it would flip GAMMA back to not done. DELTA's result (line 26) comes
    // after it, so the lines following a skipped line must still fold.
    const notice = `<task-notification>\n<task-id>ab787ad1b496b62b0</task-id>\n<status>running</status>\n<summary>${'z'.repeat(longest * 3)}</summary>\n</task-notification>`
    const filler = JSON.stringify({ type: 'queue-operation', operation: 'enqueue', content: notice })
    const text = (ls: string[]) => ls.map((l) => l + '\n').join('')
    writeFileSync(parent, text(lines.slice(0, 17)) + filler + '\n' + text(lines.slice(17)))
    // uncapped, the filler is folded: GAMMA reads running (shows the filler matters)
    const uncapped = await new RosterRegistry({ log: quiet }).acquire(parent).watcher.roster()
    expect(uncapped!.find((r) => r.agent_id === 'ab787ad1b496b62b0')!.done).toBe(false)
    const reg = new RosterRegistry({ log: quiet, limits: { chunkBytes: 512, maxLineBytes: longest + 1 } })
    expect(await reg.acquire(parent).watcher.roster()).toEqual(reference)
  })

  test('an oversized line still being written is not folded until complete; later lines then fold', async () => {
    const { parent, lines } = session()
    const reference = await new RosterRegistry({ log: quiet }).acquire(parent).watcher.roster()
    const longest = Math.max(...lines.map((l) => Buffer.byteLength(l)))
    writeFileSync(
      parent,
      lines
        .slice(0, 9)
        .map((l) => l + '\n')
        .join('') + 'q'.repeat(longest * 2),
    )
    const w = new RosterRegistry({ log: quiet, limits: { chunkBytes: 256, maxLineBytes: longest + 1 } }).acquire(parent).watcher
    expect((await w.roster())!.filter((r) => r.done).length).toBe(0)
    appendFileSync(
      parent,
      'q'.repeat(100) +
        '\n' +
        lines
          .slice(9)
          .map((l) => l + '\n')
          .join(''),
    )
    expect(await w.roster()).toEqual(reference)
  })
})

describe('sharing a fresh roster', () => {
  test('within freshMs a roster is answered without re-reading; with 0 every call re-reads', async () => {
    const { parent, lines } = session()
    // Start before the last line, so an append changes the roster input.
    writeFileSync(parent, lines.slice(0, -1).join('\n') + '\n')
    const sharing = new RosterRegistry({ log: quiet, limits: { freshMs: 60_000 } })
    const shared = sharing.acquire(parent).watcher
    const first = await shared.roster()
    expect(sharing.counters.refreshes).toBe(1)
    appendFileSync(parent, lines.at(-1)! + '\n')
    const again = await Promise.all([shared.roster(), shared.roster(), shared.roster()])
    expect(sharing.counters.refreshes).toBe(1)
    for (const r of again) expect(r).toEqual(first)

    const eagerly = new RosterRegistry({ log: quiet })
    const eager = eagerly.acquire(parent).watcher
    await eager.roster()
    await eager.roster()
    expect(eagerly.counters.refreshes).toBe(2)
  })
})
