// Shared by the hardening tests: a Claude session file of generated lines, a
// paired device, and a herdr client that holds chosen calls at a gate. (The raw
// TCP WebSocket client is test/support/raw-socket.ts.)
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { claudePane, startBridge, type Bridge } from '../support/harness'
import type { HerdrClient } from '../../src/herdr/client'
import type { FakePane } from '../../src/demo/fake-herdr'

export const SID = 'c0ffee00-0000-4000-8000-0000000000h1'
export const CWD = '/home/me/harden/proj'

/** A Claude config dir holding one session of `n` assistant lines of `size` characters. */
export function claudeSession(n: number, size = 100): { claudeDir: string; file: string; pane: FakePane } {
  const claudeDir = mkdtempSync(join(tmpdir(), 'gothalo-harden-'))
  const proj = join(claudeDir, 'projects', CWD.replace(/[/.]/g, '-'))
  mkdirSync(proj, { recursive: true })
  const lines: string[] = []
  for (let i = 1; i <= n; i++) lines.push(assistantLine(i, 'x'.repeat(size)))
  const file = join(proj, `${SID}.jsonl`)
  writeFileSync(file, lines.length ? lines.join('\n') + '\n' : '')
  const pane = claudePane({ cwd: CWD, agent: { agent_session: { agent: 'claude', kind: 'id', source: 'herdr:claude', value: SID } } })
  return { claudeDir, file, pane }
}

export function assistantLine(i: number, text: string): string {
  return JSON.stringify({
    type: 'assistant',
    uuid: `u${i}`,
    timestamp: '2026-12-02T10:00:00.000Z',
    message: { role: 'assistant', content: [{ type: 'text', text: `${i} ${text}` }] },
  })
}

/** Pairs a device through the API; returns its id and token. */
export async function pairDevice(b: Bridge, name = 'phone'): Promise<{ device_id: string; token: string }> {
  const { code } = (await (await b.post('/pair/code', {})).json()) as { code: string }
  const r = await b.post('/pair', { code, device_name: name }, null)
  if (r.status !== 200) throw new Error(`pairing failed: ${r.status} ${await r.text()}`)
  return (await r.json()) as { device_id: string; token: string }
}

/**
 * Wraps a herdr client so calls to `method` wait at a gate: `reached` resolves
 * when the first such call arrives, `open()` lets every held call through.
 */
export function gatedHerdr(inner: HerdrClient, method: keyof HerdrClient) {
  let openGate!: () => void
  const gate = new Promise<void>((r) => (openGate = r))
  let reach!: () => void
  const reached = new Promise<void>((r) => (reach = r))
  const client = new Proxy(inner, {
    get(target, prop, recv) {
      const v = Reflect.get(target, prop, recv)
      if (prop !== method || typeof v !== 'function') return v
      return async (...args: unknown[]) => {
        reach()
        await gate
        return (v as (...a: unknown[]) => unknown).apply(target, args)
      }
    },
  })
  return { client, reached, open: () => openGate() }
}

/** A bridge whose herdr client is `wrap` around a client of the fake herdr. */
export function bridgeWithHerdr(wrap: (inner: HerdrClient) => HerdrClient, o: Parameters<typeof startBridge>[0] = {}): Promise<Bridge> {
  return startBridge({ ...o, wrapHerdr: wrap })
}
