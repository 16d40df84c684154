// The import-cycle check run by `npm test`: it finds each cycle once, type-only
// imports and re-exports included, and src/ has none.
import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { cycles, importsOf } from '../../scripts/import-cycles'
import { ROOT } from '../support/harness'

test('each cycle once, whatever file the walk starts from; none in a tree without one', () => {
  const g = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a', 'd']],
    ['d', []],
    ['e', ['e']],
  ])
  expect(cycles(g)).toEqual([['a', 'b', 'c'], ['e']])
  expect(
    cycles(
      new Map([
        ['a', ['b']],
        ['b', []],
      ]),
    ),
  ).toEqual([])
})

test('type-only imports, multi-line imports, re-exports and dynamic imports count', () => {
  const file = join(ROOT, 'src/app.ts')
  const text = [
    "import type { Ctx } from './server/ctx'",
    'import {',
    '  createApp,',
    "} from './app'",
    "export { tokenOf } from './routes/sockets'",
    "const m = await import('./server/log')",
    "import { t } from 'elysia'",
  ].join('\n')
  expect(importsOf(file, text).map((f) => f.slice(ROOT.length + 1))).toEqual(['src/server/ctx.ts', 'src/app.ts', 'src/routes/sockets.ts', 'src/server/log.ts'])
})

test('src/ has no import cycle', () => {
  const r = Bun.spawnSync([process.execPath, join(ROOT, 'scripts/import-cycles.ts')], { cwd: ROOT })
  expect([r.exitCode, r.stderr.toString()]).toEqual([0, ''])
})
