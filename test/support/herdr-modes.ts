// herdr's two protocols, for tests that must hold against both: 0.8.2 (protocol 20)
// and 0.9.3 (protocol 22: no event replay, `events_lost`, the 0.9.2 record fields,
// docs/reference/herdr-0.9.md). A file imports `describe` from here instead of
// bun:test, and each of its describe blocks runs once per release: the fake herdr's
// state carries that release's version and protocol (startBridge and the helpers
// read it through inHerdrMode). A bridge a file shares between its tests is started
// per pass with eachHerdrPass.
import { afterAll, beforeAll, describe as bunDescribe } from 'bun:test'
import type { FakeState } from '../../src/demo/fake-herdr'

export interface HerdrMode {
  name: string
  version: string
  protocol: number
}

export const HERDR_MODES: HerdrMode[] = [
  { name: 'herdr 0.8.2, protocol 20', version: '0.8.2', protocol: 20 },
  { name: 'herdr 0.9.3, protocol 22', version: '0.9.3', protocol: 22 },
]

let current: HerdrMode | undefined
/** what a file sets up for each pass (a bridge of that release) and tears down after it */
const passes: { start: () => unknown; stop: () => unknown }[] = []

/** The release the running pass stands in for (undefined outside a two-release file: the fake's default, 0.8.2). */
export function herdrMode(): HerdrMode | undefined {
  return current
}

/** A fake state in the running pass's release, unless it names one itself. */
export function inHerdrMode(s: FakeState): FakeState {
  if (!current || s.protocol !== undefined || s.version !== undefined) return s
  return { ...s, version: current.version, protocol: current.protocol }
}

/**
 * In place of a file's top-level beforeAll/afterAll: `start` runs at the beginning of
 * each pass (each describe block, each release), `stop` at its end, so a bridge shared
 * by a block's tests is one of that block's release and carries nothing from another pass.
 */
export function eachHerdrPass(start: () => unknown, stop: () => unknown): void {
  passes.push({ start, stop })
}

/** bun:test's describe, once per herdr release. */
export function describe(label: string, body: () => void): void {
  for (const mode of HERDR_MODES)
    bunDescribe(`${label} [${mode.name}]`, () => {
      beforeAll(async () => {
        current = mode
        for (const p of passes) await p.start()
      })
      afterAll(async () => {
        for (const p of passes) await p.stop()
        current = undefined
      })
      body()
    })
}
