// JsonlFiles.inBackground (the search index's walk over every session): a file it
// opens gives the event loop a turn every BACKGROUND_TURN_BYTES of its index pass,
// not every 6 MiB, so a phone's first page does not wait behind it.
import { afterAll, expect, test } from 'bun:test'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { BACKGROUND_TURN_BYTES, JsonlFiles } from '../../../src/transcript/jsonl/timeline'
import type { LineNormalizer } from '../../../src/transcript/jsonl/normalizer'
import { tempDir } from '../../support/harness'

const dir = tempDir('gothalo-jsonl-background-')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const oneEach: LineNormalizer = (line, offset) => [{ id: `l@${offset}`, role: 'user', kind: 'message', text: line.slice(0, 10), parsed: true }]

/** A file of `mb` MiB of short JSON lines. */
function bigFile(name: string, mb: number): string {
  const path = join(dir, name)
  const lineText = `${JSON.stringify({ text: 'x'.repeat(200) })}\n`
  writeFileSync(path, lineText.repeat(Math.ceil((mb * 1024 * 1024) / lineText.length)))
  return path
}

test('a file opened in the background turns every 512 KiB; one opened for a socket keeps its 6 MiB', async () => {
  const files = new JsonlFiles()
  const fg = await files.acquire(bigFile('fg.jsonl', 4), oneEach)
  const afterForeground = files.counters.scanTurns
  fg.release()
  expect(afterForeground).toBe(0)
  const bg = await files.inBackground(() => files.acquire(bigFile('bg.jsonl', 4), oneEach))
  bg.release()
  // reads are 2 MiB chunks: a turn is given between chunks once 512 KiB have passed
  expect(files.counters.scanTurns - afterForeground).toBeGreaterThanOrEqual(1)
  expect(BACKGROUND_TURN_BYTES).toBe(512 * 1024)
})
