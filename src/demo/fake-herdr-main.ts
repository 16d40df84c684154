// The fake herdr's command line (tests run it through fixtures/herdr/herdr; `gothalo --demo`
// as `gothalo __fake-herdr …`): one CLI call against the state file, or `herdr server`, which
// serves the socket API in the foreground. Apart from runFake so the socket (which runs
// runFake for its own calls) and the CLI do not import each other.
import { appendFileSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { runFake, type FakeState } from './fake-herdr'

/** The CLI entry: reads FAKE_HERDR_STATE, runs, writes output, logs the call. */
export async function fakeHerdrMain(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  const statePath = env.FAKE_HERDR_STATE
  if (env.FAKE_HERDR_LOG) appendFileSync(env.FAKE_HERDR_LOG, JSON.stringify({ argv }) + '\n')
  if (!statePath) {
    process.stderr.write('fake herdr: FAKE_HERDR_STATE is not set\n')
    return 1
  }
  // `herdr server`: serve the socket API in the foreground, where herdr would (HERDR_SOCKET_PATH, …).
  if (argv[0] === 'server' && argv.length === 1) {
    const [{ startFakeHerdrSocket }, { herdrSocketPath }] = await Promise.all([import('./fake-herdr-socket'), import('../herdr/socket')])
    await startFakeHerdrSocket({ statePath, socketPath: herdrSocketPath(env), logPath: env.FAKE_HERDR_LOG })
    await new Promise(() => setInterval(() => {}, 1 << 30))
  }
  let state: FakeState
  try {
    state = JSON.parse(readFileSync(statePath, 'utf8'))
  } catch (e) {
    process.stderr.write(`fake herdr: cannot read state: ${(e as Error).message}\n`)
    return 1
  }
  const { out, changed } = runFake(argv, state, dirname(statePath))
  if (out.hang) {
    await new Promise(() => setInterval(() => {}, 1 << 30))
  }
  if (changed) {
    const tmp = `${statePath}.${process.pid}.tmp`
    writeFileSync(tmp, JSON.stringify(state, null, 1))
    renameSync(tmp, statePath)
  }
  if (out.stdout) process.stdout.write(out.stdout)
  if (out.stderr) process.stderr.write(out.stderr)
  return out.code
}

if (import.meta.main) {
  const code = await fakeHerdrMain(process.argv.slice(2), process.env)
  process.exit(code)
}
