import { afterAll, expect, test } from 'bun:test'
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { listJsonlFiles, newestMatching, readHeadLines } from '../../../src/transcript/jsonl/files'
import { tempDir } from './helpers'

const tmp = tempDir()
afterAll(() => tmp.cleanup())

function put(name: string, content: string | Buffer, mtimeSec: number): string {
  const p = join(tmp.dir, name)
  writeFileSync(p, content)
  utimesSync(p, mtimeSec, mtimeSec)
  return p
}

const rec = (cwd: string) => JSON.stringify({ type: 'user', cwd }) + '\n'

test('listJsonlFiles lists only *.jsonl files, newest first', async () => {
  const a = put('a.jsonl', rec('/x'), 1000)
  const b = put('b.jsonl', rec('/y'), 3000)
  put('c.txt', 'nope', 4000)
  mkdirSync(join(tmp.dir, 'd.jsonl')) // a directory with the suffix is not a file
  const c = put('e.jsonl', '', 2000)
  expect((await listJsonlFiles(tmp.dir)).map((f) => f.path)).toEqual([b, c, a])
  expect(await listJsonlFiles(join(tmp.dir, 'missing'))).toEqual([])
})

test('readHeadLines reads only complete head lines within the byte budget', async () => {
  const p = put('head.jsonl', '{"a":1}\n\n{"b":2}\r\n' + 'x'.repeat(5000) + '\n{"c":3}\n', 1)
  expect(await readHeadLines(p, 2)).toEqual(['{"a":1}', '{"b":2}'])
  // the long third line does not fit in 100 bytes: it is not returned cut
  expect(await readHeadLines(p, 10, 100)).toEqual(['{"a":1}', '{"b":2}'])
  expect(await readHeadLines(p, 10)).toEqual(['{"a":1}', '{"b":2}', 'x'.repeat(5000), '{"c":3}'])
  expect(await readHeadLines(join(tmp.dir, 'nope.jsonl'))).toEqual([])
  const bin = put('bin.jsonl', Buffer.from([0xff, 0x00, 0x0a, 0xc3]), 1)
  expect((await readHeadLines(bin)).length).toBe(1)
})

test('newestMatching picks the newest file whose head satisfies the predicate', async () => {
  const dir = join(tmp.dir, 'proj')
  mkdirSync(dir)
  const wanted = join(dir, 'old-match.jsonl')
  writeFileSync(wanted, rec('/home/me/p'))
  utimesSync(wanted, 1000, 1000)
  writeFileSync(join(dir, 'newer-other.jsonl'), rec('/elsewhere'))
  writeFileSync(join(dir, 'garbage.jsonl'), 'not json\n')
  const cwdIs = (cwd: string) => (head: string[]) =>
    head.some((l) => {
      try {
        return JSON.parse(l).cwd === cwd
      } catch {
        return false
      }
    })
  expect((await newestMatching(dir, cwdIs('/home/me/p')))?.path).toBe(wanted)
  expect(await newestMatching(dir, cwdIs('/nowhere'))).toBeUndefined()
  expect(
    await newestMatching(dir, () => {
      throw new Error('predicate bug')
    }),
  ).toBeUndefined()
})
