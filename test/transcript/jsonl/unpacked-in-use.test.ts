// The unpacked copies of codex's compressed sessions (docs/bridge.md "codex's
// compressed and archived rollouts"): copies a transcript holds are never evicted,
// so a viewer opening many compressed sessions at once and keeping them open
// could unpack every one of them onto the disk. The copies in use and being made
// take at most the bound plus one session's cap; past it a new copy is refused
// with a clear error, and made once a held one is let go.
import { afterEach, expect, test } from 'bun:test'
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { zstdCompressSync } from 'node:zlib'
import { isCompressedSessionError, UnpackedSessions, type UnpackedCopy } from '../../../src/transcript/jsonl/zst'
import { tempDir } from '../../support/harness'

let unpacked: UnpackedSessions | undefined
afterEach(() => unpacked?.close())

const SESSION = 100_000

test('copies in use past the bound and one session more: a new one is refused, saying why; made once one is released', async () => {
  const sessions = join(tempDir('gothalo-zst-in-use-'), 'sessions')
  mkdirSync(sessions)
  const files = Array.from({ length: 6 }, (_, i) => {
    const path = join(sessions, `rollout-${i}.jsonl.zst`)
    // a different content each: each is a copy of its own
    writeFileSync(path, zstdCompressSync(Buffer.from(`${String(i).repeat(SESSION - 1)}\n`)))
    return path
  })
  const dir = join(tempDir('gothalo-zst-in-use-'), 'unpacked')
  // the bound: two sessions; one session's cap: one. At most three in use.
  unpacked = new UnpackedSessions({ dir, maxBytes: 2 * SESSION, maxUnpackedBytes: SESSION, log: () => {} })
  const held: UnpackedCopy[] = []
  for (const f of files.slice(0, 3)) held.push(await unpacked.acquire(f, sessions))
  const refused = await unpacked.acquire(files[3]!, sessions).then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(isCompressedSessionError(refused)).toBe(true)
  expect((refused as Error).message).toBe('the unpacked copies in use take 300000 bytes (at most 300000): close a past session and try again')
  const onDisk = () => readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0)
  expect(onDisk()).toBe(3 * SESSION)
  // a copy already made is served whatever the total (it costs nothing more)
  const again = await unpacked.acquire(files[0]!, sessions)
  again.release()
  held.shift()!.release()
  const fourth = await unpacked.acquire(files[3]!, sessions)
  expect(statSync(fourth.path).size).toBe(SESSION)
  fourth.release()
  for (const h of held) h.release()
  expect(onDisk()).toBeLessThanOrEqual(2 * SESSION)
})
