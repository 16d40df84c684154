// The working tree is not the whole disk (issue 37, part A): each attack on
// GET /files, /changes and /changes/diff, tried as an attacker would with panes
// whose directories the attacker chose, beside a positive control that still
// reads what it should. Hostile repositories, a FIFO and a symlink swap race are
// built here, in temp dirs.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  statSync,
  symlinkSync,
  utimesSync,
  watch,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import type { HerdrClient } from '../../src/herdr/client'
import { pairDevice, startBridge, waitFor, type Bridge } from '../support/harness'

/** The test's own git: a fixed identity, nothing from the machine's config. */
function g(cwd: string, ...args: string[]): string {
  const r = Bun.spawnSync(
    ['git', '-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', '-c', 'protocol.file.allow=always', ...args],
    { cwd, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } },
  )
  if (r.exitCode !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr.toString()}`)
  return r.stdout.toString()
}
function put(path: string, text: string | Buffer) {
  mkdirSync(join(path, '..'), { recursive: true })
  writeFileSync(path, text)
}

let b: Bridge
let snapshot: ReturnType<HerdrClient['snapshot']> | undefined
let H: string
let viewer: string
let coder: string
const P: Record<string, string> = {}
const pane = (name: string) => `w1:p${Object.keys(P).indexOf(name) + 1}`
const files = (name: string, path: string, token = coder) => b.get(`/files?pane=${pane(name)}&path=${encodeURIComponent(path)}`, token)
const diff = (name: string, path: string, staged = false) =>
  b.get(`/changes/diff?pane=${pane(name)}&path=${encodeURIComponent(path)}&staged=${staged ? 1 : 0}`, coder)
const changes = async (name: string) => (await b.json(`/changes?pane=${pane(name)}`, coder)) as { files: { path: string; additions: number }[] }

const ADMIN_TOKEN_TEXT = 'the-admin-token-never-leaves'
const SECRET = 'SECRET-CREDENTIAL'

beforeAll(async () => {
  // herdr's state read once per change of the panes (the stand-in's CLI costs a process per call)
  b = await startBridge({
    wrapHerdr: (c) =>
      new Proxy(c, {
        get(t, k) {
          if (k === 'snapshot') return () => (snapshot ??= t.snapshot())
          const v = (t as unknown as Record<string | symbol, unknown>)[k]
          return typeof v === 'function' ? v.bind(t) : v
        },
      }),
  })
  H = join(b.dir, 'home')
  // the bridge's own data directory under the home, and every credential store a home holds
  put(join(H, '.local/share/gothalo/admin-token'), ADMIN_TOKEN_TEXT)
  put(join(H, '.local/share/gothalo/vapid.json'), `{"privateKey":"${SECRET}"}`)
  put(join(H, '.local/share/gothalo/gothalo.db'), SECRET)
  put(join(H, '.local/share/other.txt'), 'a file beside the data directory\n')
  for (const f of [
    '.ssh/id_ed25519',
    '.gnupg/private-keys-v1.d/k.key',
    '.aws/credentials',
    '.azure/msal_token_cache.json',
    '.kube/config',
    '.docker/config.json',
    '.netrc',
    '.git-credentials',
    '.npmrc',
    '.pypirc',
    '.config/gh/hosts.yml',
    '.config/gcloud/credentials.db',
    '.claude/.credentials.json',
    '.codex/auth.json',
    '.local/share/opencode/auth.json',
    '.pi/agent/auth.json',
  ])
    put(join(H, f), `${SECRET}\n`)
  put(join(H, 'notes/todo.md'), '# todo\n')
  P.home = H
  P.notes = join(H, 'notes')
  P.share = join(H, '.local/share')

  // a dotfiles repository: credentials tracked in it, ignored files beside tracked and untracked ones
  const dots = (P.dots = join(H, 'dots'))
  mkdirSync(dots)
  g(dots, 'init', '-q')
  put(join(dots, 'README.md'), 'dotfiles\n')
  put(join(dots, '.gitignore'), '.env\nbuild/\n')
  put(join(dots, '.ssh/config'), `Host x\n  IdentityFile ${SECRET}\n`)
  put(join(dots, '.npmrc'), `//registry/:_authToken=${SECRET}\n`)
  g(dots, 'add', '-A')
  g(dots, 'commit', '-qm', 'dots')
  put(join(dots, '.ssh/config'), `Host y\n  IdentityFile ${SECRET}\n`)
  put(join(dots, 'new.txt'), 'untracked, not ignored\n')
  put(join(dots, '.env'), `TOKEN=${SECRET}\n`)
  put(join(dots, 'build/out.js'), `// ${SECRET}\n`)

  viewer = (await pairDevice(b, 'viewer', ['read'])).token
  coder = (await pairDevice(b, 'coder', ['read', 'code'])).token
}, 60_000)
afterAll(() => b?.stop())

/** Points the fake herdr's panes at the directories in P (a pane per entry, in order). */
function panesFromP() {
  snapshot = undefined
  b.setState({ panes: Object.values(P).map((cwd, i) => ({ pane_id: `w1:p${i + 1}`, workspace_id: 'w1', tab_id: 'w1:t1', cwd, screen: '$ ' })) })
}

describe('a viewer does not become admin', () => {
  test('a shell pane in $HOME: the admin token is 403 to a read device and 404 to a code device; nothing private is served anywhere', async () => {
    panesFromP()
    const token = '.local/share/gothalo/admin-token'
    const asViewer = await files('home', token, viewer)
    expect([asViewer.status, await asViewer.text()]).toEqual([403, 'forbidden: needs scope code'])
    for (const path of [
      token,
      '.local/share/gothalo/vapid.json',
      '.local/share/gothalo/gothalo.db',
      '.ssh/id_ed25519',
      '.aws/credentials',
      'notes/todo.md',
      '',
    ]) {
      const r = await files('home', path)
      expect([path, r.status, await r.text()]).toEqual([path, 404, 'no such file'])
    }
    // below the home, outside git: the data directory and every credential store are 404 whatever the pane's directory
    const share = await files('share', '')
    expect(share.status).toBe(200)
    const names = ((await share.json()) as { entries: { name: string }[] }).entries.map((e) => e.name)
    expect(names).toContain('other.txt')
    expect(names).not.toContain('gothalo')
    expect((await files('share', 'other.txt')).status).toBe(200)
    for (const path of ['gothalo/admin-token', 'gothalo', 'opencode/auth.json']) {
      const r = await files('share', path)
      expect([path, r.status, await r.text()]).toEqual([path, 404, 'no such file'])
    }
    // the positive control: a project directory below the home reads
    expect(await (await files('notes', 'todo.md')).json()).toMatchObject({ path: 'todo.md', text: '# todo\n' })
    // the home as a pane directory with one of the stores as the pane's own directory
    P.ssh = join(H, '.ssh')
    P.gothalo = join(H, '.local/share/gothalo')
    panesFromP()
    for (const [name, path] of [
      ['ssh', 'id_ed25519'],
      ['ssh', ''],
      ['gothalo', 'admin-token'],
    ]) {
      const r = await files(name!, path!)
      expect([name, path, r.status]).toEqual([name, path, 404])
    }
  })

  test('every credential store is refused, even when a repository tracks it; the data directory too', async () => {
    panesFromP()
    for (const path of ['.ssh/config', '.ssh', '.npmrc']) {
      const r = await files('dots', path)
      expect([path, r.status, await r.text()]).toEqual([path, 404, 'no such file'])
      const d = await diff('dots', path)
      expect([path, d.status]).toEqual([path, 404])
    }
    const c = await changes('dots')
    expect(c.files.map((f) => f.path).sort()).toEqual(['new.txt'])
  })
})

describe('only what git shows', () => {
  test('tracked and untracked files read; ignored ones are listed as ignored, never read or diffed', async () => {
    panesFromP()
    expect(await (await files('dots', 'README.md')).json()).toMatchObject({ text: 'dotfiles\n' })
    expect(await (await files('dots', 'new.txt')).json()).toMatchObject({ text: 'untracked, not ignored\n' })
    expect((await diff('dots', 'new.txt')).status).toBe(200)
    for (const path of ['.env', 'build/out.js', 'build']) {
      const r = await files('dots', path)
      expect([path, r.status, await r.text()]).toEqual([path, 404, 'no such file'])
      expect([path, (await diff('dots', path)).status]).toEqual([path, 404])
    }
    const top = (await (await files('dots', '')).json()) as { entries: { name: string; ignored?: boolean }[] }
    const byName = Object.fromEntries(top.entries.map((e) => [e.name, e.ignored ?? false]))
    expect(byName).toEqual({ '.env': true, '.gitignore': false, 'README.md': false, build: true, 'new.txt': false })
    const body = JSON.stringify(top)
    expect(body).not.toContain(SECRET)
  })

  test('a path git refuses (outside the repository) is 404, never 500', async () => {
    panesFromP()
    for (const path of ['../x', '../../etc/passwd', '/etc/passwd', 'a/../../x', '.git/config']) {
      for (const staged of [false, true]) {
        const r = await diff('dots', path, staged)
        expect([path, staged, r.status, await r.text()]).toEqual([path, staged, 404, 'no such change'])
      }
    }
    expect((await diff('dots', 'README.md')).status).toBe(404) // unchanged: no change, still 404
    expect((await diff('dots', 'new.txt')).status).toBe(200)
  })
})

describe('git stays inert in submodules', () => {
  test("a clean filter in .git/modules/<sm>/config with `* filter=s` in the submodule runs during neither /changes nor /changes/diff; the top repository's change is listed", async () => {
    const root = join(b.dir, 'sm-attack')
    const marker = join(root, 'filter-ran')
    const src = join(root, 'src')
    mkdirSync(src, { recursive: true })
    g(src, 'init', '-q')
    put(join(src, 'a.txt'), 'a\n')
    g(src, 'add', '-A')
    g(src, 'commit', '-qm', 'a')
    const top = (P.super = join(H, 'super'))
    mkdirSync(top)
    g(top, 'init', '-q')
    put(join(top, 'top.txt'), 'top\n')
    g(top, 'add', '-A')
    g(top, 'commit', '-qm', 'top')
    g(top, 'submodule', '-q', 'add', src, 'sm')
    g(top, 'commit', '-qm', 'sm')
    const evil = join(root, 'evil.sh')
    writeFileSync(evil, `#!/bin/sh\necho "$0 $*" >> '${marker}'\ncat\n`)
    chmodSync(evil, 0o755)
    g(top, 'config', '-f', join(top, '.git/modules/sm/config'), 'filter.s.clean', evil)
    g(top, 'config', '-f', join(top, '.git/modules/sm/config'), 'filter.s.process', evil)
    put(join(top, 'sm/.gitattributes'), '* filter=s\n')
    // the submodule's file changed and its stat data is stale: a status inside it would run the filter
    put(join(top, 'sm/a.txt'), 'a changed\n')
    put(join(top, 'top.txt'), 'top changed\n')
    expect(existsSync(marker)).toBe(false)
    panesFromP()
    const c = await changes('super')
    expect(c.files.map((f) => f.path)).toEqual(['top.txt'])
    expect((await diff('super', 'sm')).status).toBe(404)
    expect((await diff('super', 'top.txt')).status).toBe(200)
    expect(existsSync(marker)).toBe(false)
  })
})

describe('nothing blocks the bridge', () => {
  test('a FIFO is listed, never opened; an untracked symlink to it or to /etc/passwd counts as a link; /healthz answers meanwhile', async () => {
    const repo = (P.fifo = join(H, 'fifo'))
    mkdirSync(repo)
    g(repo, 'init', '-q')
    put(join(repo, 'tracked.txt'), 'one\n')
    g(repo, 'add', '-A')
    g(repo, 'commit', '-qm', 'one')
    const fifo = join(repo, 'p')
    expect(Bun.spawnSync(['mkfifo', fifo]).exitCode).toBe(0)
    symlinkSync('p', join(repo, 'to-fifo'))
    symlinkSync('/etc/passwd', join(repo, 'to-passwd'))
    put(join(repo, 'untracked.txt'), 'a\nb\n')
    panesFromP()
    // Should a reader block on the FIFO (the bridge's only thread with it), this opens the writing
    // end after a while, and leaves a file saying so first: a /healthz answer with that file absent
    // came while the FIFO was still unopened by anyone.
    const released = join(b.dir, 'fifo-released')
    const unblock = Bun.spawn(['sh', '-c', `sleep 8; : > '${released}'; : > '${fifo}'`], { stdout: 'ignore', stderr: 'ignore' })
    try {
      const fifoRead = files('fifo', 'p')
      const changed = changes('fifo')
      const health = await b.get('/healthz', null)
      expect([health.status, existsSync(released)]).toEqual([200, false])
      const r = await fifoRead
      expect([r.status, await r.text()]).toEqual([404, 'no such file'])
      const c = await changed
      const rows = Object.fromEntries(c.files.map((f) => [f.path, f.additions]))
      expect(rows).toEqual({ 'to-fifo': 1, 'to-passwd': 1, 'untracked.txt': 2 })
      const link = (await (await diff('fifo', 'to-passwd')).json()) as { hunks: { lines: { text: string }[] }[] }
      expect(link.hunks[0]!.lines.map((l) => l.text)).toEqual(['/etc/passwd'])
      expect((await diff('fifo', 'to-fifo')).status).toBe(200)
      const list = (await (await files('fifo', '')).json()) as { entries: { name: string; type: string }[] }
      expect(list.entries.filter((e) => e.name !== '.git').map((e) => [e.name, e.type])).toEqual([
        ['p', 'other'],
        ['to-fifo', 'symlink'],
        ['to-passwd', 'symlink'],
        ['tracked.txt', 'file'],
        ['untracked.txt', 'file'],
      ])
      for (const path of ['to-passwd', 'to-fifo']) expect([path, (await files('fifo', path)).status]).toEqual([path, 404])
      expect(existsSync(released)).toBe(false)
    } finally {
      unblock.kill()
      // a reader still waiting (the bug) is let go
      try {
        closeSync(openSync(fifo, 'w+'))
      } catch {}
    }
  })
})

describe('a symlink swap cannot reach outside', () => {
  test('a directory exchanged with a symlink to the outside (renameat2 RENAME_EXCHANGE) during 200 requests: no outside read, inside reads still answer', async () => {
    const REQUESTS = 200
    const python = Bun.which('python3')
    if (!python) throw new Error('this test needs python3 (ctypes) for renameat2: apt-get install python3')
    const dir = (P.swap = join(H, 'swap'))
    const outside = join(b.dir, 'outside')
    put(join(dir, 'd/f.txt'), 'inside\n')
    put(join(outside, 'f.txt'), `${SECRET} outside\n`)
    symlinkSync(outside, join(dir, 'l'))
    panesFromP()
    const script = [
      'import ctypes, os, sys, time',
      'libc = ctypes.CDLL(None, use_errno=True)',
      'a, b = sys.argv[1].encode(), sys.argv[2].encode()',
      'first = True',
      'while True:',
      '    if libc.renameat2(-100, a, -100, b, 2) != 0:',
      '        sys.stderr.write("renameat2: " + os.strerror(ctypes.get_errno()) + "\\n"); sys.exit(1)',
      // at an attacker's pace, not flat out: a rename storm slows every path lookup on the machine
      '    time.sleep(0.0005)',
      '    if first:',
      '        print("swapping", flush=True); first = False',
    ].join('\n')
    const swapper = Bun.spawn([python, '-c', script, join(dir, 'd'), join(dir, 'l')], { stdout: 'pipe', stderr: 'pipe' })
    try {
      const first = await swapper.stdout.getReader().read()
      if (!new TextDecoder().decode(first.value).includes('swapping')) throw new Error(`the swap helper failed: ${await new Response(swapper.stderr).text()}`)
      let outsideReads = 0
      let insideReads = 0
      // four requests in flight at a time, as a phone's retries and a script's would be
      for (let i = 0; i < REQUESTS / 4; i++)
        await Promise.all(
          Array.from({ length: 4 }, async () => {
            const r = await files('swap', 'd/f.txt')
            const text = await r.text()
            if (text.includes(SECRET)) outsideReads++
            if (r.status === 200 && text.includes('inside')) insideReads++
          }),
        )
      expect({ outsideReads }).toEqual({ outsideReads: 0 })
      expect(insideReads).toBeGreaterThan(0)
    } finally {
      swapper.kill()
      await swapper.exited
    }
  }, 180_000)
})

describe('the index is never rewritten', () => {
  test('stale stat data, a split index and an untracked cache: /changes and /changes/diff leave .git/index and its shared index as they were, and no index.lock appears', async () => {
    const repo = (P.index = join(H, 'index'))
    mkdirSync(repo)
    g(repo, 'init', '-q')
    g(repo, 'config', 'core.splitIndex', 'true')
    g(repo, 'config', 'core.untrackedCache', 'true')
    for (let i = 0; i < 20; i++) put(join(repo, `f${i}.txt`), `file ${i}\n`)
    g(repo, 'add', '-A')
    g(repo, 'commit', '-qm', 'files')
    g(repo, 'update-index', '--split-index', '--untracked-cache')
    g(repo, 'status', '--porcelain')
    put(join(repo, 'f0.txt'), 'file 0 changed\n')
    put(join(repo, 'new.txt'), 'new\n')
    // touched without a change: the index's stat data for these no longer matches
    const later = new Date(Date.now() + 60_000)
    for (let i = 1; i < 10; i++) utimesSync(join(repo, `f${i}.txt`), later, later)
    const git = join(repo, '.git')
    const shared = readdirSync(git).filter((n) => n.startsWith('sharedindex.'))
    expect(shared).toHaveLength(1)
    const indexes = () => ({
      index: readFileSync(join(git, 'index')),
      mtime: statSync(join(git, 'index')).mtimeMs,
      shared: readFileSync(join(git, shared[0]!)),
      lock: existsSync(join(git, 'index.lock')),
    })
    const before = indexes()
    const seen: string[] = []
    const watcher = watch(git, (_e, name) => name && seen.push(String(name)))
    try {
      panesFromP()
      const c = await changes('index')
      expect(c.files.map((f) => f.path).sort()).toEqual(['f0.txt', 'new.txt'])
      expect((await diff('index', 'f0.txt')).status).toBe(200)
      expect((await diff('index', 'f1.txt')).status).toBe(404)
      expect((await diff('index', 'new.txt')).status).toBe(200)
      expect((await diff('index', 'f0.txt', true)).status).toBe(404)
      // every event before this one has been delivered once this one is
      writeFileSync(join(git, 'gothalo-test-sentinel'), '')
      await waitFor(() => seen.includes('gothalo-test-sentinel'), 5000, 'the sentinel event')
      // (git freshens the shared index's mtime when it reads it, so that it is not expired: its bytes stay)
      expect(seen.filter((n) => n.startsWith('index'))).toEqual([])
      expect(indexes()).toEqual(before)
    } finally {
      watcher.close()
    }
  })
})
