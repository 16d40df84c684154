// Bodies read up to a limit (src/server/capped-body.ts): an upload, another
// bridge's answer. Past the limit the stream is cancelled, never read to its end.
import { expect, test } from 'bun:test'
import { readCapped, readUpTo } from '../../src/server/capped-body'

/** A stream of `chunks` chunks of `size` bytes that says how far it was read and whether it was cancelled. */
function counted(chunks: number, size: number) {
  const seen = { pulled: 0, cancelled: false }
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (seen.pulled === chunks) return c.close()
      seen.pulled++
      c.enqueue(new Uint8Array(size).fill(seen.pulled))
    },
    cancel() {
      seen.cancelled = true
    },
  })
  return { stream, seen }
}

test('within the limit: every byte, in order', async () => {
  const { stream, seen } = counted(4, 10)
  const bytes = await readCapped(stream, null, 40)
  expect([...bytes!]).toEqual([...Array(10).fill(1), ...Array(10).fill(2), ...Array(10).fill(3), ...Array(10).fill(4)])
  expect(seen.cancelled).toBe(false)
})

test('past the limit: undefined, and the stream cancelled where it passed it', async () => {
  const { stream, seen } = counted(1000, 10)
  expect(await readCapped(stream, null, 35)).toBeUndefined()
  expect(seen).toEqual({ pulled: 4, cancelled: true })
})

test('a declared length past the limit: undefined without a read', async () => {
  const { stream, seen } = counted(1000, 10)
  expect(await readCapped(stream, String(1 << 30), 35)).toBeUndefined()
  expect(seen).toEqual({ pulled: 0, cancelled: true })
  // a declared length that is no number is no answer: the bytes decide
  expect((await readCapped(counted(2, 5).stream, 'lots', 35))?.length).toBe(10)
})

test('readUpTo: the first bytes, and whether there were more', async () => {
  const { stream, seen } = counted(1000, 10)
  const { bytes, more } = await readUpTo(stream, 25)
  expect([bytes.length, more, bytes[24]]).toEqual([25, true, 3])
  expect(seen.cancelled).toBe(true)
  expect(await readUpTo(null, 25)).toEqual({ bytes: new Uint8Array(), more: false })
})
