// `gothalo machines add LABEL TARGET --code CODE | list | remove LABEL | import`
// (docs/bridge.md "Several machines from one phone"). The store is a file in the
// data dir that a running bridge re-reads (src/machines/watch.ts): no restart.
import type { Settings } from './config'
import { fromHerdrMachine, labelProblem, parseTarget } from '../machines/target'
import { readMachines, writeMachines } from '../machines/store'
import { pairWithRemote } from '../machines/pair'
import { openTunnel } from '../machines/ssh'
import { formatTime } from './admin'

export interface MachinesCommandOpts {
  fetch?: typeof fetch
  clock?: () => number
  /** runs `herdr machine list --json` (import) */
  herdrMachines?: () => Promise<string>
}

export async function runMachinesCommand(s: Settings, out: (line: string) => void, opts: MachinesCommandOpts = {}): Promise<number> {
  const err = (line: string) => {
    out(line)
    return 1
  }
  switch (s.command) {
    case 'machines-list': {
      const ms = readMachines(s.dataDir)
      if (ms.length === 0) out('no machines (gothalo machines add LABEL TARGET --code CODE)')
      for (const m of ms) out(`${m.label}  ${m.target}  added ${formatTime(m.added_at)}`)
      return 0
    }
    case 'machines-remove': {
      const label = s.args?.[0] ?? ''
      const ms = readMachines(s.dataDir)
      if (!ms.some((m) => m.label === label)) return err(`no such machine: ${label}`)
      writeMachines(
        s.dataDir,
        ms.filter((m) => m.label !== label),
      )
      out(`removed ${label} (its device stays paired at the remote until revoked there: gothalo devices revoke)`)
      return 0
    }
    case 'machines-import': {
      const run = opts.herdrMachines ?? (() => herdrMachineList(s.herdr))
      let rows: unknown
      try {
        rows = JSON.parse(await run())
      } catch (e) {
        return err(`herdr machine list --json: ${(e as Error).message.split('\n')[0]}`)
      }
      if (!Array.isArray(rows)) return err('herdr machine list --json: not a list')
      const taken = new Set(readMachines(s.dataDir).map((m) => m.label))
      const offers = rows.map(fromHerdrMachine).filter((m) => m !== undefined && !taken.has(m.label))
      if (offers.length === 0) out('no saved herdr machines to add')
      // Each remote needs its own pairing code, made there: the command to run is offered, not run.
      for (const m of offers) out(`gothalo machines add ${m!.label} ${m!.target} --code CODE   # CODE: run \`gothalo pair\` on that machine`)
      return 0
    }
    case 'machines-add': {
      const [label, raw] = s.args ?? []
      const bad = labelProblem(label ?? '')
      if (bad) return err(bad)
      if (!s.code) return err('machines add needs --code CODE (run `gothalo pair` on the remote machine)')
      const target = parseTarget(raw ?? '')
      if ('error' in target) return err(target.error)
      if (readMachines(s.dataDir).some((m) => m.label === label)) return err(`label taken: ${label} (gothalo machines remove ${label} first)`)
      let base: string
      let close = () => {}
      if (target.kind === 'http') base = target.url
      else {
        const t = await openTunnel(target)
        if (!t.ok) return err(`ssh ${raw}: ${t.error}`)
        base = t.base
        close = t.close
      }
      try {
        const paired = await pairWithRemote(base, s.code, opts.fetch)
        if (!paired.ok) return err(paired.error)
        // read again: another add may have run meanwhile
        const now = readMachines(s.dataDir)
        if (now.some((m) => m.label === label)) return err(`label taken: ${label}`)
        writeMachines(s.dataDir, [...now, { label, target: raw, device_id: paired.device_id, token: paired.token, added_at: (opts.clock ?? Date.now)() }])
        out(`added ${label} (${raw}); a running bridge picks it up within seconds`)
        return 0
      } finally {
        close()
      }
    }
    default:
      return err(`not a machines command: ${s.command}`)
  }
}

async function herdrMachineList(herdr: string): Promise<string> {
  const p = Bun.spawn([herdr, 'machine', 'list', '--json'], { stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' })
  const timer = setTimeout(() => p.kill(), 10_000)
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
  clearTimeout(timer)
  if (code !== 0) throw new Error(stderr.trim() || `exit ${code}`)
  return stdout
}
