// Page reads borrow one kept buffer in turn; a read made while it is out gets
// its own, so reads that overlap (two sockets paging at once) never share bytes.
import { afterAll, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { KEEP_BYTES, ReadBuffer } from '../../../src/transcript/jsonl/read-buffer'
import { JsonlFiles } from '../../../src/transcript/jsonl/timeline'
import { countingNormalizer, line, naiveEntries, rng, tempDir, withFileReads } from './helpers'

const tmp = tempDir()
afterAll(() => tmp.cleanup())

test('the kept buffer is lent again; one borrowed while it is out is fresh; one past the bound is never kept', () => {
  const rb = new ReadBuffer(64 * 1024)
  const a = rb.borrow(10_000)
  expect(a.length).toBe(16 * 1024) // grown in powers of two
  rb.giveBack(a)
  expect(rb.keptBytes).toBe(16 * 1024)
  const again = rb.borrow(12_000)
  expect(again).toBe(a)
  const meanwhile = rb.borrow(100)
  expect(meanwhile).not.toBe(a)
  rb.giveBack(again)
  rb.giveBack(meanwhile) // smaller than the one kept: let go
  expect(rb.borrow(100)).toBe(a)
  rb.giveBack(a)
  const big = rb.borrow(100_000)
  expect(big.length).toBe(100_000)
  rb.giveBack(big)
  expect(rb.keptBytes).toBe(16 * 1024)
  const grown = rb.borrow(40_000)
  expect(grown.length).toBe(64 * 1024)
  rb.giveBack(grown)
  expect(rb.keptBytes).toBe(64 * 1024)
  expect(KEEP_BYTES).toBe(1 << 20)
})

test('reads that overlap, on one file and on two, each get their own bytes', async () => {
  const jsonl = new JsonlFiles()
  const rand = rng(11)
  const paths: string[] = []
  const alls: ReturnType<typeof naiveEntries>[] = []
  for (const name of ['a', 'b']) {
    const parts: string[] = []
    for (let i = 0; i < 300; i++) parts.push(line(`${name}${i}`, 1 + Math.floor(rand() * 3), name.repeat(20 + Math.floor(rand() * 400))))
    const bytes = Buffer.from(parts.join(''))
    const path = join(tmp.dir, `${name}.jsonl`)
    writeFileSync(path, bytes)
    paths.push(path)
    alls.push(naiveEntries(bytes))
  }
  const tls = await Promise.all(paths.map((p) => jsonl.acquire(p, countingNormalizer, { watch: false })))
  expect(await tls[0]!.read(250, 290)).toEqual(alls[0]!.slice(249, 290)) // leaves a buffer kept
  // Every read's bytes land before any read goes on to normalize them: the reads
  // below overlap for sure (a shared buffer would hand one the other's bytes).
  let landed = 0
  let all: () => void = () => {}
  const allLanded = new Promise<void>((res) => (all = res))
  const overlapping = 4
  try {
    await withFileReads(
      async (real, args) => {
        const r = await real(args)
        if (++landed === overlapping) all()
        await allLanded
        return r
      },
      () =>
        Promise.all(
          [
            [0, 5, 40],
            [1, 30, 90],
            [0, 100, 160],
            [1, 200, 230],
          ].map(([f, a, b]) => tls[f!]!.read(a!, b!).then((got) => expect(got).toEqual(alls[f!]!.slice(a! - 1, b)))),
        ),
    )
    expect(landed).toBe(overlapping)
  } finally {
    for (const tl of tls) tl.release()
    jsonl.drop()
  }
})
