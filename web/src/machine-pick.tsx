// Which machine a screen asks (docs/bridge.md "Several machines"): the machines
// the bridge merges, and a choice among them shown only when there is more than
// one, so a phone paired with a single machine sees no machine words at all.
import { useEffect, useState } from 'preact/hooks'
import { api } from './api'

export interface MachineRow {
  id: string
  label: string
  state?: string
}

/** GET /machines' rows (the home first, `local`); empty until it answers or when it fails. */
export function useMachines(): MachineRow[] {
  const [machines, setMachines] = useState<MachineRow[]>([])
  useEffect(() => {
    api
      .get('/machines')
      .then((r) => setMachines(r.machines ?? []))
      .catch(() => setMachines([]))
  }, [])
  return machines
}

/** `machine=LABEL` for another machine's answer; nothing for this one. */
export const machineQuery = (machine: string) => (machine === 'local' ? '' : `machine=${encodeURIComponent(machine)}`)

/** A path with the query parts that are not empty. */
export const withQuery = (path: string, ...parts: string[]) => {
  const q = parts.filter(Boolean).join('&')
  return q ? `${path}?${q}` : path
}

/** The machines as radio buttons (an offline one disabled); nothing with a single machine. */
export function MachinePick({ machines, machine, onPick }: { machines: MachineRow[]; machine: string; onPick: (id: string) => void }) {
  if (machines.length <= 1) return null
  return (
    <section class="machine-pick">
      <h2>Machine</h2>
      <div class="kinds" role="radiogroup" aria-label="machine">
        {machines.map((m) => (
          <label key={m.id} class={machine === m.id ? 'on' : ''}>
            <input
              type="radio"
              name="machine"
              value={m.id}
              checked={machine === m.id}
              disabled={m.state !== undefined && m.state !== 'online'}
              onChange={() => onPick(m.id)}
            />{' '}
            {m.id === 'local' ? 'This machine' : m.label}
          </label>
        ))}
      </div>
    </section>
  )
}
