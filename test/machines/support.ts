// Two or three real bridges on one machine: a home bridge that merges the others
// (its machines.json in a data dir of its own), each with its own fake herdr and HOME.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { runMachinesCommand } from '../../src/cli/machines'
import { parseSettings } from '../../src/cli/config'
import type { FakePane } from '../../src/demo/fake-herdr'
import { pairDevice, startBridge, tempDir, type Bridge, type BridgeOptions } from '../support/harness'

export interface Home extends Bridge {
  dataDir: string
}

export async function startHome(panes: FakePane[], o: BridgeOptions = {}): Promise<Home> {
  const dataDir = join(tempDir('gothalo-home-'), 'data')
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const b = await startBridge({
    state: { panes },
    herdrSocket: true,
    ...o,
    deps: { machines: { dataDir, pollMs: 50, backoffMs: { min: 50, max: 400 } }, ...o.deps },
  })
  return Object.assign(b, { dataDir })
}

/** `gothalo machines add LABEL <remote> --code <a code made there>`, as the shell would run it. */
export async function addMachine(home: Home, label: string, remote: Bridge, scopes?: string[]): Promise<string[]> {
  const { code } = (await (await remote.post('/pair/code', scopes ? { scopes } : {})).json()) as { code: string }
  const lines: string[] = []
  const exit = await runMachinesCommand(
    parseSettings(['machines', 'add', label, remote.base, '--code', code, '--data-dir', home.dataDir], { HOME: '/nonexistent' }),
    (l) => lines.push(l),
  )
  if (exit !== 0) throw new Error(lines.join('\n'))
  return lines
}

export async function removeMachine(home: Home, label: string): Promise<void> {
  const exit = await runMachinesCommand(parseSettings(['machines', 'remove', label, '--data-dir', home.dataDir], { HOME: '/nonexistent' }), () => {})
  if (exit !== 0) throw new Error(`remove ${label} failed`)
}

export { pairDevice }
