// The gothalo executable: settings → createApp → Bun serves it. Everything
// else lives in createApp and the modules it composes.
// The server's modules are imported when needed: the demo runs this executable
// once per herdr call as its herdr stand-in, and that path should load only the fake.
import { HELP, UsageError, agentHomes, parseSettings, type Settings } from './config'
import { fakeHerdrMain } from './demo/fake-herdr'
import type { Demo } from './demo/demo'
import { VERSION } from './version'
import { join } from 'node:path'

/** The compiled binary runs itself as the demo's herdr stand-in. */
const FAKE_HERDR = '__fake-herdr'
const compiled = import.meta.path.startsWith('/$bunfs')

async function serve(s: Settings, dataDirGiven: boolean): Promise<void> {
  const [{ createApp }, { loadOrCreateAdminToken }, { createAuthStore }, { createHerdrClient }, { prepareDemo }] = await Promise.all([
    import('./app'),
    import('./auth/admin-token'),
    import('./auth/store'),
    import('./herdr/client'),
    import('./demo/demo'),
  ])
  const env = { ...process.env }
  let herdrOpts = { bin: s.herdr, argvPrefix: [] as string[], env: undefined as Record<string, string | undefined> | undefined }
  let demo: Demo | undefined
  let dataDir = s.dataDir
  if (s.demo) {
    demo = await prepareDemo()
    Object.assign(env, demo.env)
    herdrOpts = { bin: process.execPath, argvPrefix: compiled ? [FAKE_HERDR] : [import.meta.path, FAKE_HERDR], env }
    // The demo keeps its token and devices with its samples unless a data dir is named.
    if (!dataDirGiven) dataDir = join(demo.dir, 'data')
    console.log(`demo: herdr stand-in state in ${demo.dir}; sample sessions grow every few seconds`)
  }
  const admin = loadOrCreateAdminToken(dataDir, s.adminToken)
  const auth = createAuthStore({ dbPath: join(dataDir, 'gothalo.db'), adminToken: admin.token, watchRevocationsMs: 2000 })
  const app = createApp({
    herdr: createHerdrClient({ ...herdrOpts, timeoutMs: s.herdrTimeoutMs }),
    auth,
    homes: agentHomes(env),
    version: VERSION,
  })
  try {
    app.listen({ hostname: s.host, port: s.port })
  } catch (e) {
    // One line naming the port, and a failing exit: a second bridge must not start.
    const inUse = (e as { code?: string }).code === 'EADDRINUSE'
    process.stderr.write(`gothalo: cannot listen on ${s.host}:${s.port}: ${inUse ? `port ${s.port} is already in use` : (e as Error).message}\n`)
    auth.close()
    process.exit(1)
  }
  const where = `http://${s.host}:${app.server!.port}`
  console.log(`gothalo ${VERSION} listening on ${where} (swagger: ${where}/swagger)`)
  if (admin.created) console.log(`admin token (shown once, stored 0600 in ${dataDir}): ${admin.token}`)
  if (demo) {
    demo.startLive()
    console.log(demo.howTo(where, admin.token))
  }
  const stop = () => {
    void app.stop(true)
    auth.close()
    demo?.cleanup()
    process.exit(0)
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

async function main(argv: string[]): Promise<number | undefined> {
  if (argv[0] === FAKE_HERDR) return fakeHerdrMain(argv.slice(1), process.env)
  let s: Settings
  try {
    s = parseSettings(argv, process.env)
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`gothalo: ${e.message} (see gothalo --help)\n`)
      return 2
    }
    throw e
  }
  switch (s.command) {
    case 'help':
      process.stdout.write(HELP)
      return 0
    case 'version':
      console.log(`gothalo ${VERSION}`)
      return 0
    case 'pair':
    case 'devices':
    case 'devices-revoke':
      return (await import('./cli-admin')).runAdminCommand(s, (l) => console.log(l))
    case 'serve':
      await serve(s, argv.some((a) => a === '--data-dir' || a.startsWith('--data-dir=')) || !!process.env.GOTHALO_DATA_DIR)
      return undefined
  }
}

const code = await main(process.argv.slice(2))
if (code !== undefined) process.exit(code)
