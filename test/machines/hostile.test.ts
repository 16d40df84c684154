// What real use and a broken or hostile remote show: a home paired with too few
// scopes there, machines.json edited by hand, a machine removed while its ssh
// tunnel is still opening.
import { afterEach, expect, test } from 'bun:test'
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startBridge, tempDir, waitFor } from '../support/harness'
import { writeMachines } from '../../src/machines/store'

import { addMachine, fakeRemote, startHome } from './support'

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

type Listed = { id: string; state: string; error?: string }

test('a remote that grants the home no read scope: attention saying so, not offline', async () => {
  const home = await startHome([])
  cleanups.push(() => home.stop())
  const laptop = await startBridge({ herdrSocket: true, state: { panes: [] } })
  cleanups.push(() => laptop.stop())
  await addMachine(home, 'laptop', laptop, ['answer'])
  const m = await waitFor(
    async () => {
      const l = (await home.json('/machines')).machines[1] as Listed
      return l?.error ? l : undefined
    },
    5000,
    'a state with a reason',
  )
  expect(m.state).toBe('attention')
  expect(m.error).toContain('read')
})

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

test('a machine removed while its ssh tunnel is still opening: the ssh it started does not outlive it', async () => {
  const dir = tempDir('gothalo-fake-ssh-')
  // an ssh that takes its time: it listens on its -L port only once the test says go
  const ssh = join(dir, 'ssh')
  writeFileSync(
    ssh,
    `#!${process.execPath}
import { existsSync, writeFileSync } from 'node:fs'
const l = process.argv[process.argv.indexOf('-L') + 1]
writeFileSync(${JSON.stringify(join(dir, 'pid'))}, String(process.pid))
while (!existsSync(${JSON.stringify(join(dir, 'go'))})) await Bun.sleep(20)
Bun.listen({ hostname: '127.0.0.1', port: Number(l.split(':')[1]), socket: { data() {} } })
writeFileSync(${JSON.stringify(join(dir, 'listening'))}, '')
setInterval(() => {}, 1000)
`,
  )
  chmodSync(ssh, 0o755)
  const home = await startHome([], {}, { ssh, readyMs: 20_000 })
  cleanups.push(() => home.stop())
  writeMachines(home.dataDir, [{ label: 'box', target: 'ssh://box.example', device_id: 'd', token: 't', added_at: 0 }])
  const pid = await waitFor(async () => existsSync(join(dir, 'pid')) && Number(readFileSync(join(dir, 'pid'), 'utf8')), 5000, 'ssh started')
  cleanups.push(() => alive(pid) && process.kill(pid, 'SIGKILL'))
  writeMachines(home.dataDir, [])
  await waitFor(async () => (await home.json('/machines')).machines.length === 1, 5000, 'box removed')
  writeFileSync(join(dir, 'go'), '')
  await waitFor(async () => existsSync(join(dir, 'listening')), 5000, 'the tunnel listening')
  await waitFor(async () => !alive(pid), 3000, 'the ssh of a removed machine ended')
})

test('machines.json edited by hand: a label that is not one, `local`, a second `lap`: each skipped with a log line, the rest merged', async () => {
  const first = fakeRemote({})
  const second = fakeRemote({})
  cleanups.push(first.stop, second.stop)
  const home = await startHome([])
  cleanups.push(() => home.stop())
  const entry = (label: string, target: string) => ({ label, target, device_id: 'd', token: 't', added_at: 0, note: 'an unknown field' })
  writeFileSync(
    join(home.dataDir, 'machines.json'),
    JSON.stringify({
      version: 1,
      machines: [entry('Laptop', first.base), entry('local', first.base), entry('a/b', first.base), entry('lap', first.base), entry('lap', second.base)],
    }),
  )
  await waitFor(async () => (await home.json('/machines')).machines[1]?.state === 'online', 5000, 'lap online')
  const listed = (await home.json('/machines')).machines as (Listed & { target?: string })[]
  expect(listed.map((m) => [m.id, m.target])).toEqual([
    ['local', undefined],
    ['lap', first.base],
  ])
  const said = home.logLines.map((l) => String(l.msg ?? ''))
  for (const why of ['"Laptop"', 'local is', '"a/b"', 'label taken: lap'])
    expect(said.some((l) => l.startsWith('machines.json: skipped') && l.includes(why))).toBe(true)
  // its panes are reachable as LABEL/PANE
  expect((await home.json('/snapshot')).panes.map((p: { pane_id: string }) => p.pane_id)).toEqual(['lap/w1:p1'])
  // a save that does not parse: said, and nothing lost
  writeFileSync(join(home.dataDir, 'machines.json'), '{"version": 1, "machines": [')
  await waitFor(async () => home.logLines.some((l) => String(l.msg ?? '').startsWith('machines: ')), 5000, 'the parse error said')
  expect(((await home.json('/machines')).machines as Listed[]).map((m) => [m.id, m.state])).toEqual([
    ['local', 'online'],
    ['lap', 'online'],
  ])
})
