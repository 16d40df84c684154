// A page read takes each line's drafts from its bytes parsed once when the
// normalizer can take a parsed value (LineNormalizer.fromJson), and from the
// line's text otherwise: bytes that are not exactly one JSON value (torn,
// garbage, a BOM, two values, trailing junk), a value the kind declines, a
// fromJson that throws. Either way the entries are the ones the text gives.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Draft } from '../../../src/transcript/entry'
import { normalizeBytes } from '../../../src/transcript/jsonl/line-index'
import type { LineNormalizer } from '../../../src/transcript/jsonl/normalizer'
import { JsonlFiles } from '../../../src/transcript/jsonl/timeline'
import { countingNormalizer, line, naiveEntries, tempDir } from './helpers'

/** countingNormalizer, with the same drafts from a parsed value, counting which path each line took. */
function spiedNormalizer() {
  const calls = { text: 0, json: 0 }
  const normalize: LineNormalizer = (text, offset) => {
    calls.text++
    return countingNormalizer(text, offset)
  }
  normalize.fromJson = (value, offset) => {
    calls.json++
    const rec = value as { uuid?: unknown; n?: unknown; t?: unknown; boom?: unknown } | null
    if (rec === null || typeof rec !== 'object' || typeof rec.n !== 'number') return undefined // unplaced: the text's to carry
    if (rec.boom) throw new Error('a shape this path did not foresee')
    const id = typeof rec.uuid === 'string' ? rec.uuid : `line@${offset}`
    const out: Draft[] = []
    for (let i = 0; i < rec.n; i++) out.push({ id: `${id}#${i}`, role: 'assistant', kind: 'message', text: String(rec.t ?? ''), parsed: true })
    return out
  }
  return { normalize, calls }
}

const jsonl = new JsonlFiles()
const tmp = tempDir()
let path: string
let bytes: Buffer

beforeAll(() => {
  const lines = [
    line('a', 2, 'plain'),
    line('b', 1, 'é漢🙂 and an escaped lone surrogate \ud800'),
    '{"uuid":"half","n":1,"t":"torn mid-wri\n', // torn: not one value
    `\ufeff${line('bom', 1, 'after a BOM')}`, // JSON.parse refuses the BOM: the text says parsed:false
    `${line('two', 1).trim()} ${line('values', 1).trim()}\n`, // two values on one line
    `${line('junk', 1).trim()}xyz\n`, // trailing garbage
    '42\n', // one value, not a record: declined by fromJson, unplaced with its text
    '{"uuid":"boom","n":1,"boom":true}\n', // fromJson throws: the text path decides
    `${line('crlf', 1, 'windows').trim()}\r\n`,
    `  ${line('spaced', 1, 'between spaces').trim()}  \n`,
    line('z', 3, 'last'),
  ]
  bytes = Buffer.from(lines.join(''))
  path = join(tmp.dir, 'mixed.jsonl')
  writeFileSync(path, bytes)
})

afterAll(() => {
  jsonl.drop()
  tmp.cleanup()
})

test('a page read equals the text path on every line, and takes the bytes path for the records', async () => {
  const { normalize, calls } = spiedNormalizer()
  const tl = await jsonl.acquire(path, normalize, { watch: false })
  try {
    const want = naiveEntries(bytes) // the text path alone, line by line
    expect(want.filter((e) => e.parsed === false).length).toBe(5) // the torn, BOM, two-value, junk and 42 lines
    calls.text = 0
    calls.json = 0
    expect(await tl.read(1, tl.total())).toEqual(want)
    // from the bytes: a, b, crlf, spaced, z, and 42 and boom before they fall back;
    // from the text: the torn, BOM, two-value and junk lines, 42 and boom
    expect(calls).toEqual({ text: 6, json: 7 })
  } finally {
    tl.release()
  }
})

test('normalizeBytes: one value → fromJson; anything else, a declined value or a throw → the text, as normalizeSafely', () => {
  const { normalize, calls } = spiedNormalizer()
  const at = (s: string) => {
    const b = Buffer.from(s)
    return normalizeBytes(normalize, b, 0, b.length, 9)
  }
  expect(at('{"uuid":"u","n":1,"t":"x"}')).toEqual([{ id: 'u#0', role: 'assistant', kind: 'message', text: 'x', parsed: true }])
  expect(calls).toEqual({ text: 0, json: 1 })
  expect(at('{"uuid":"u","n":1,"t":"x"')).toEqual(countingNormalizer('{"uuid":"u","n":1,"t":"x"', 9))
  expect(at('[1]')).toEqual(countingNormalizer('[1]', 9))
  expect(at('{"n":1,"boom":1}')).toEqual(countingNormalizer('{"n":1,"boom":1}', 9))
  expect(calls).toEqual({ text: 3, json: 3 })
  // a normalizer without fromJson always reads the text
  const b = Buffer.from(line('t', 1, 'x').trim())
  expect(normalizeBytes(countingNormalizer, b, 0, b.length, 0)).toEqual(countingNormalizer(b.toString(), 0))
})
