// The gothalo executable: settings → createApp → Bun serves it. Everything
// else lives in createApp and the modules it composes.
// The server's modules are imported when needed: the demo runs this executable
// once per herdr call as its herdr stand-in, and that path should load only the fake.
import { HELP, UsageError, agentHomes, parseSettings, type Settings } from './cli/config'
import { fakeHerdrMain } from './demo/fake-herdr-main'
import type { Demo } from './demo/demo'
import type { FakeHerdrSocket } from './demo/fake-herdr-socket'
import type { PushStore } from './push/store'
import type { AuditLog } from './audit/log'
import type { AttachmentStore } from './attachments/store'
import type { StartedPanes } from './projects/started'
import { loadTls, watchTls } from './link/tls'
import { readStoredPublicUrl } from './link/expose'
import { createLogger, isLoopback, type Logger } from './server/log'
import { describeStartupError, localUrl, removeRuntimeInfo, writeRuntimeInfo } from './cli/startup'
import { VERSION } from './server/version'
import { join } from 'node:path'

/** The compiled binary runs itself as the demo's herdr stand-in. */
const FAKE_HERDR = '__fake-herdr'
const compiled = import.meta.path.startsWith('/$bunfs')

/** How to run this same program again (the demo's herdr stand-in, the service unit). */
function selfCommand(): string[] {
  return compiled ? [process.execPath] : [process.execPath, import.meta.path]
}

async function serve(s: Settings, log: Logger): Promise<void> {
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
    // typed text goes to herdr's socket: the demo's stand-in serves one from its state
    await demo.serveSocket()
    const [bin, ...prefix] = selfCommand()
    herdrOpts = { bin, argvPrefix: [...prefix, FAKE_HERDR], env }
    // The demo keeps its token and devices with its samples unless a data dir is named.
    if (!s.dataDirGiven) dataDir = join(demo.dir, 'data')
    console.log(`demo: herdr stand-in state in ${demo.dir}; sample sessions grow every few seconds`)
  }
  let auth: ReturnType<typeof createAuthStore> | undefined
  let pushStore: PushStore | undefined
  let audit: AuditLog | undefined
  let attachments: AttachmentStore | undefined
  let startedPanes: StartedPanes | undefined
  let stopTlsWatch: (() => void) | undefined
  let fakeSocket: FakeHerdrSocket | undefined
  const [
    { herdrSocketPath },
    { startFakeHerdrSocket },
    { loadOrCreateVapidKeys },
    { createPushStore },
    { createAuditLog },
    { createAttachmentStore },
    { createStartedPanes },
  ] = await Promise.all([
    import('./herdr/socket'),
    import('./demo/fake-herdr-socket'),
    import('./push/vapid'),
    import('./push/store'),
    import('./audit/log'),
    import('./attachments/store'),
    import('./projects/started'),
  ])
  try {
    const admin = loadOrCreateAdminToken(dataDir, s.adminToken)
    auth = createAuthStore({ dbPath: join(dataDir, 'gothalo.db'), adminToken: admin.token, watchRevocationsMs: 2000 })
    // herdr's socket API for the one watcher: herdr's own path, or the demo stand-in's (served in this process)
    let herdrSocket = herdrSocketPath(env)
    if (demo) {
      herdrSocket = join(demo.dir, 'herdr.sock')
      fakeSocket = await startFakeHerdrSocket({ statePath: demo.env.FAKE_HERDR_STATE!, socketPath: herdrSocket })
    }
    const vapid = loadOrCreateVapidKeys(dataDir)
    // the address the phone uses: --public-url, else what `gothalo expose` remembered
    const publicUrl = s.publicUrl ?? readStoredPublicUrl(dataDir)
    pushStore = createPushStore(join(dataDir, 'gothalo.db'))
    audit = createAuditLog(join(dataDir, 'gothalo.db'))
    attachments = createAttachmentStore(join(dataDir, 'attachments'), join(dataDir, 'gothalo.db'))
    startedPanes = createStartedPanes(join(dataDir, 'gothalo.db'))
    const app = createApp({
      audit,
      attachments,
      startedPanes,
      projectRoots: s.projectRoots,
      tailscaleUser: s.tailscaleUser,
      herdrSocket,
      push: {
        store: pushStore,
        vapid: vapid.keys,
        // VAPID `sub`: how a push service reaches whoever runs this bridge
        subject: publicUrl?.startsWith('https://') ? publicUrl : 'mailto:gothalo-bridge@example.com',
      },
      herdr: createHerdrClient({
        ...herdrOpts,
        timeoutMs: s.herdrTimeoutMs,
        // a protocol mismatch is told once (the client holds the rest back): it needs the user, not a retry
        onFailure: (f) =>
          f.code === 'protocol_mismatch'
            ? log.error('herdr server needs a restart', { command: f.command, code: f.code, error: f.message })
            : log.warn('herdr failed', { command: f.command, kind: f.kind, code: f.code, error: f.message }),
      }),
      auth,
      homes: agentHomes(env),
      version: VERSION,
      logger: log,
      indexCacheDir: join(dataDir, 'index-cache'),
      unpacked: { dir: join(dataDir, 'unpacked-sessions') },
      bridgeDirs: [dataDir, join(env.XDG_CONFIG_HOME || join(agentHomes(env).home, '.config'), 'gothalo')],
      // other machines' bridges, from <data dir>/machines.json (gothalo machines add), re-read when it changes
      machines: { dataDir },
      search: { path: join(dataDir, 'search.db') },
      watchAtStart: true,
      warmUp: true,
    })
    // HTTPS of its own when given a certificate (checked first: a bad pair is a one-line error)
    const tlsPair = s.tlsCert && s.tlsKey ? loadTls(s.tlsCert, s.tlsKey) : undefined
    app.listen({ hostname: s.host, port: s.port, ...(tlsPair ? { tls: { cert: tlsPair.cert, key: tlsPair.key } } : {}) })
    if (tlsPair && s.tlsCert && s.tlsKey) {
      const port = app.server!.port!
      stopTlsWatch = watchTls(s.tlsCert, s.tlsKey, tlsPair, {
        renewed: (p) => {
          // Bun keeps a listener's certificate for its life: the listener is opened again, same port, new pair
          void (async () => {
            await app.server?.stop(false)
            app.listen({ hostname: s.host, port, tls: { cert: p.cert, key: p.key } })
            log.info('tls renewed', { valid_to: p.validTo })
          })()
        },
        failed: (why) => log.warn('tls renewal not used', { error: why }),
      })
    }
    if (!isLoopback(s.host))
      log.warn('listening beyond this machine', {
        host: s.host,
        advice: 'anyone who can reach this address can try tokens; prefer 127.0.0.1 behind tailscale serve',
      })
    const where = localUrl(s.host, app.server!.port!, tlsPair !== undefined)
    writeRuntimeInfo(dataDir, { url: where, pid: process.pid, version: VERSION, public_url: publicUrl, started_at: Date.now() })
    console.log(`gothalo ${VERSION} listening on ${where} (swagger: ${where}/swagger)`)
    log.info('listening', { url: where, data_dir: dataDir, public_url: publicUrl, version: VERSION })
    if (admin.created) console.log(`admin token (shown once, stored 0600 in ${dataDir}): ${admin.token}`)
    if (demo) {
      demo.startLive()
      const self = compiled ? 'gothalo' : 'npm start --'
      console.log(demo.howTo(where, admin.token, { dataDir, publicUrl, self }))
    }
    const store = auth
    let stopping = false
    const stop = async (signal: string) => {
      if (stopping) return
      stopping = true
      log.info('stopping', { signal })
      removeRuntimeInfo(dataDir)
      await Promise.race([app.stop(true), Bun.sleep(1000)])
      // Closing the streams released their transcripts: let the index cache finish saving them (bounded).
      await app.decorator.indexCache.flush(2000)
      void fakeSocket?.close()
      pushStore?.close()
      stopTlsWatch?.()
      audit?.close()
      attachments?.close()
      startedPanes?.close()
      store.close()
      demo?.cleanup()
      process.exit(0)
    }
    process.on('SIGINT', () => void stop('SIGINT'))
    process.on('SIGTERM', () => void stop('SIGTERM'))
  } catch (e) {
    pushStore?.close()
    audit?.close()
    attachments?.close()
    startedPanes?.close()
    void fakeSocket?.close()
    auth?.close()
    demo?.cleanup()
    throw e
  }
}

async function main(argv: string[]): Promise<number | undefined> {
  if (argv[0] === FAKE_HERDR) return fakeHerdrMain(argv.slice(1), process.env)
  // a command module of its own: why a card says what it says
  if (argv[0] === 'explain') return (await import('./cli/explain')).runExplain(argv.slice(1))
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
  const log = createLogger({ level: s.logLevel, format: s.logFormat })
  try {
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
      case 'audit':
      case 'expose':
        return await (await import('./cli/admin')).runAdminCommand(s, (l) => console.log(l), {
          colour: process.stdout.isTTY === true,
          err: (l) => console.error(l),
        })
      case 'machines-list':
      case 'machines-add':
      case 'machines-remove':
      case 'machines-import':
        return await (await import('./cli/machines')).runMachinesCommand(s, (l) => console.log(l))
      case 'service-install':
      case 'service-uninstall':
        return await (await import('./cli/service')).runServiceCommand(s, (l) => console.log(l), { self: selfCommand(), err: (l) => console.error(l) })
      case 'serve':
        await serve(s, log)
        return undefined
    }
  } catch (e) {
    // One line with what to do; the stack only when asked for.
    const line = describeStartupError(e, s)
    process.stderr.write(`gothalo: ${line}\n`)
    if (s.logLevel === 'debug') process.stderr.write(`${(e as Error)?.stack ?? String(e)}\n`)
    return 1
  }
}

const code = await main(process.argv.slice(2))
if (code !== undefined) process.exit(code)
