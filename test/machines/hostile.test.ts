// What real use and a broken or hostile remote show: a home paired with too few
// scopes there, machines.json edited by hand, a machine removed while its ssh
// tunnel is still opening.
import { afterEach, expect, test } from 'bun:test'
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startBridge, tempDir, waitFor } from '../support/harness'
import { writeMachines } from '../../src/machines/store'

import { addMachine, startHome } from './support'

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
