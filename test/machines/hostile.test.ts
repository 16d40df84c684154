// What real use and a broken or hostile remote show: a home paired with too few
// scopes there, a machine removed while its ssh tunnel is still opening.
import { afterEach, expect, test } from 'bun:test'
import { startBridge, waitFor } from '../support/harness'
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
