// Review changes end to end, on real repositories the test makes with git in
// temp dirs: every status kind, renames, a conflict, a detached head, an
// upstream, an empty repository, binary and huge files, odd names; diffs; files;
// and a repository whose config tries to run commands, which must run nothing.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startBridge, tempDir, type Bridge } from '../support/harness'

/** The test's own git (not the bridge's): a fixed identity, nothing from the machine's config. */
function g(cwd: string, ...args: string[]): string {
  const r = Bun.spawnSync(
    ['git', '-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', '-c', 'protocol.file.allow=always', ...args],
    {
      cwd,
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
    },
  )
  if (r.exitCode !== 0 && !(args[0] === 'merge')) throw new Error(`git ${args.join(' ')}: ${r.stderr.toString()}`)
  return r.stdout.toString()
}
function repo(name: string): string {
  const d = join(root, name)
  mkdirSync(d, { recursive: true })
  g(d, 'init', '-q')
  return d
}
const lines = (n: number, tag = 'line') => Array.from({ length: n }, (_, i) => `${tag} ${i + 1}`).join('\n') + '\n'

let root: string
let b: Bridge
const R: Record<string, string> = {}
const marker = () => join(root, 'ran')

beforeAll(async () => {
  root = tempDir('gothalo-changes-')
  // main: every status kind
  const m = (R.main = repo('main'))
  writeFileSync(join(m, 'a.txt'), lines(5))
  writeFileSync(join(m, 'b.txt'), lines(3))
  writeFileSync(join(m, 'c.txt'), 'gone soon\n')
  writeFileSync(join(m, 'd.bin'), Buffer.from([0, 1, 2, 3, 0, 255]))
  writeFileSync(join(m, 'e.txt'), lines(4, 'move'))
  mkdirSync(join(m, 'src'))
  writeFileSync(join(m, 'src/huge.txt'), lines(30_000))
  g(m, 'add', '-A')
  g(m, 'commit', '-qm', 'one')
  writeFileSync(join(m, 'a.txt'), lines(5).replace('line 3\n', 'line three\nline 3.5\n'))
  writeFileSync(join(m, 'b.txt'), lines(3) + 'more\n')
  g(m, 'add', 'b.txt')
  writeFileSync(join(m, 'n.txt'), 'new\n')
  g(m, 'add', 'n.txt')
  g(m, 'rm', '-q', 'c.txt')
  g(m, 'mv', 'e.txt', 'e2.txt')
  writeFileSync(join(m, 'd.bin'), Buffer.from([0, 9, 9, 9, 0, 255, 7]))
  writeFileSync(join(m, 'u.txt'), 'one\ntwo\nthree')
  writeFileSync(join(m, 'we"ird\nname.txt'), 'odd\n')
  writeFileSync(join(m, 'src/huge.txt'), lines(30_000, 'changed line with more text in it'))
  symlinkSync(root, join(m, 'out'))
  writeFileSync(join(m, 'pic.png'), Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'))

  // a merge conflict
  const c = (R.conflict = repo('conflict'))
  writeFileSync(join(c, 'f.txt'), 'base\n')
  g(c, 'add', '-A')
  g(c, 'commit', '-qm', 'base')
  g(c, 'checkout', '-qb', 'other')
  writeFileSync(join(c, 'f.txt'), 'theirs\n')
  g(c, 'commit', '-qam', 'theirs')
  g(c, 'checkout', '-q', 'main')
  writeFileSync(join(c, 'f.txt'), 'ours\n')
  g(c, 'commit', '-qam', 'ours')
  g(c, 'merge', '-q', 'other')

  // a detached head, and a clone with an upstream it is ahead of and behind
  const d = (R.detached = repo('detached'))
  writeFileSync(join(d, 'x'), '1\n')
  g(d, 'add', '-A')
  g(d, 'commit', '-qm', 'x')
  g(d, 'checkout', '-q', '--detach')
  R.clone = join(root, 'clone')
  g(root, 'clone', '-q', d, R.clone)
  g(R.clone, 'checkout', '-q', '-B', 'main', 'origin/HEAD')
  g(R.clone, 'branch', '-q', '--set-upstream-to=origin/HEAD')
  writeFileSync(join(R.clone, 'y'), '2\n')
  g(R.clone, 'add', '-A')
  g(R.clone, 'commit', '-qm', 'y')

  // an empty repository with one untracked file
  R.empty = repo('empty')
  writeFileSync(join(R.empty, 'first.txt'), 'hello\n')

  // a submodule whose work tree changed
  const sub = repo('subsrc')
  writeFileSync(join(sub, 's.txt'), 's\n')
  g(sub, 'add', '-A')
  g(sub, 'commit', '-qm', 's')
  R.super = repo('super')
  writeFileSync(join(R.super, 'top.txt'), 't\n')
  g(R.super, 'add', '-A')
  g(R.super, 'commit', '-qm', 't')
  g(R.super, 'submodule', '-q', 'add', sub, 'sub')
  g(R.super, 'commit', '-qm', 'sub')
  // its recorded commit moved (git shows that); a change inside its work tree alone is the submodule's own
  writeFileSync(join(R.super, 'sub/s.txt'), 's changed\n')
  g(join(R.super, 'sub'), 'commit', '-qam', 's2')

  // a repository whose config tries to run commands: each would leave a file behind
  const h = (R.hostile = repo('hostile'))
  const script = join(root, 'evil.sh')
  writeFileSync(script, `#!/bin/sh\necho "$0 $*" >> '${marker()}'\ncat\n`)
  chmodSync(script, 0o755)
  writeFileSync(join(h, 't.txt'), lines(3))
  writeFileSync(join(h, '.gitattributes'), '*.txt filter=evil diff=evil\n')
  g(h, 'add', '-A')
  g(h, 'commit', '-qm', 'h')
  for (const [k, v] of [
    ['core.fsmonitor', script],
    ['core.pager', script],
    ['diff.external', script],
    ['filter.evil.clean', script],
    ['filter.evil.smudge', script],
    ['filter.evil.process', script],
    ['diff.evil.textconv', script],
    ['diff.evil.command', script],
    ['core.hooksPath', join(root, 'hooks')],
    ['credential.helper', script],
  ])
    g(h, 'config', k!, v!)
  mkdirSync(join(root, 'hooks'))
  for (const hook of ['post-index-change', 'reference-transaction', 'fsmonitor-watchman']) {
    writeFileSync(join(root, 'hooks', hook), `#!/bin/sh\necho hook >> '${marker()}'\n`)
    chmodSync(join(root, 'hooks', hook), 0o755)
  }
  writeFileSync(join(h, 't.txt'), lines(4))
  // the hostile settings run for the test's own git too: start clean
  if (existsSync(marker())) Bun.spawnSync(['rm', '-f', marker()])

  R.plain = join(root, 'plain')
  mkdirSync(R.plain)
  writeFileSync(join(R.plain, 'notes.md'), '# notes\n')

  const names = Object.keys(R)
  b = await startBridge({
    state: { panes: names.map((n, i) => ({ pane_id: `w1:p${i + 1}`, workspace_id: 'w1', tab_id: 'w1:t1', cwd: R[n], screen: '$ ' })) },
    // outside git, only a pane directory inside a project root is served
    deps: { projectRoots: [root] },
  })
  paneOf = (n: string) => `w1:p${names.indexOf(n) + 1}`
}, 60_000)
afterAll(() => b?.stop())

let paneOf: (name: string) => string = () => ''
const changes = async (name: string) => (await b.json(`/changes?pane=${paneOf(name)}`)) as any
const diff = async (name: string, path: string, staged = false) =>
  b.get(`/changes/diff?pane=${paneOf(name)}&path=${encodeURIComponent(path)}&staged=${staged ? 1 : 0}`)

describe('GET /changes', () => {
  test('every status kind, staged and not, with +/− counts; binary; a rename; an odd name', async () => {
    const c = await changes('main')
    expect(c).toMatchObject({ repo_root: R.main, branch: 'main', ahead: 0, behind: 0, truncated: false })
    expect(c.head).toMatch(/^[0-9a-f]{40}$/)
    expect(c.upstream).toBeUndefined()
    const row = (path: string, staged: boolean) => c.files.find((f: any) => f.path === path && f.staged === staged)
    expect(row('a.txt', false)).toEqual({ path: 'a.txt', status: 'modified', staged: false, additions: 2, deletions: 1, binary: false })
    expect(row('b.txt', true)).toEqual({ path: 'b.txt', status: 'modified', staged: true, additions: 1, deletions: 0, binary: false })
    expect(row('n.txt', true)).toMatchObject({ status: 'added', additions: 1 })
    expect(row('c.txt', true)).toMatchObject({ status: 'deleted', deletions: 1 })
    expect(row('e2.txt', true)).toEqual({ path: 'e2.txt', status: 'renamed', staged: true, old_path: 'e.txt', additions: 0, deletions: 0, binary: false })
    expect(row('d.bin', false)).toMatchObject({ status: 'modified', binary: true, additions: 0, deletions: 0 })
    expect(row('u.txt', false)).toEqual({ path: 'u.txt', status: 'untracked', staged: false, additions: 3, deletions: 0, binary: false })
    expect(row('we"ird\nname.txt', false)).toMatchObject({ status: 'untracked', additions: 1 })
    expect(row('src/huge.txt', false)).toMatchObject({ additions: 30_000, deletions: 30_000 })
  })

  test('a merge conflict; a detached head; an upstream ahead; an empty repository; a submodule', async () => {
    expect((await changes('conflict')).files).toMatchObject([{ path: 'f.txt', status: 'conflicted', staged: false, binary: false }])
    const d = await changes('detached')
    expect(d.branch).toBeUndefined()
    expect(d.head).toMatch(/^[0-9a-f]{40}$/)
    expect(await changes('clone')).toMatchObject({ branch: 'main', upstream: 'origin/main', ahead: 1, behind: 0, files: [] })
    const e = await changes('empty')
    expect(e).toMatchObject({ branch: 'main', files: [{ path: 'first.txt', status: 'untracked', additions: 1 }] })
    expect(e.head).toBeUndefined()
    // the submodule's commit line, old and new
    expect((await changes('super')).files).toEqual([{ path: 'sub', status: 'modified', staged: false, additions: 1, deletions: 1, binary: false }])
  })

  test('outside git: 404 not a git repository; an unknown pane 404', async () => {
    const r = await b.get(`/changes?pane=${paneOf('plain')}`)
    expect([r.status, await r.text()]).toEqual([404, 'not a git repository'])
    expect((await b.get('/changes?pane=w9:p9')).status).toBe(404)
  })
})

describe('GET /changes/diff', () => {
  test('numbered hunks for a modification; staged; untracked against nothing; binary marked; a huge diff cut', async () => {
    const a = (await (await diff('main', 'a.txt')).json()) as any
    expect(a).toMatchObject({ path: 'a.txt', binary: false, truncated: false })
    expect(a.hunks).toHaveLength(1)
    expect(a.hunks[0].header).toStartWith('@@ -1,5 +1,6 @@')
    expect(a.hunks[0].lines).toEqual([
      { op: ' ', old: 1, new: 1, text: 'line 1' },
      { op: ' ', old: 2, new: 2, text: 'line 2' },
      { op: '-', old: 3, text: 'line 3' },
      { op: '+', new: 3, text: 'line three' },
      { op: '+', new: 4, text: 'line 3.5' },
      { op: ' ', old: 4, new: 5, text: 'line 4' },
      { op: ' ', old: 5, new: 6, text: 'line 5' },
    ])
    const bStaged = (await (await diff('main', 'b.txt', true)).json()) as any
    expect(bStaged.hunks[0].lines.filter((l: any) => l.op === '+')).toEqual([{ op: '+', new: 4, text: 'more' }])
    expect((await diff('main', 'b.txt', false)).status).toBe(404)
    const u = (await (await diff('main', 'u.txt')).json()) as any
    expect(u.hunks[0].lines).toEqual([
      { op: '+', new: 1, text: 'one' },
      { op: '+', new: 2, text: 'two' },
      { op: '+', new: 3, text: 'three' },
    ])
    const odd = (await (await diff('main', 'we"ird\nname.txt')).json()) as any
    expect(odd.hunks[0].lines).toEqual([{ op: '+', new: 1, text: 'odd' }])
    expect(((await (await diff('main', 'd.bin')).json()) as any).binary).toBe(true)
    const ren = (await (await diff('main', 'e2.txt', true)).json()) as any
    expect(ren).toMatchObject({ path: 'e2.txt', old_path: 'e.txt', hunks: [] })
    const huge = (await (await diff('main', 'src/huge.txt')).json()) as any
    expect(huge.truncated).toBe(true)
    expect(JSON.stringify(huge).length).toBeLessThan(4 * 1024 * 1024)
    // cut at a line boundary: the last line shown is whole, the number its text ends with
    const last = huge.hunks.at(-1).lines.at(-1)
    expect(last.text).toBe(last.op === '-' ? `line ${last.old}` : `changed line with more text in it ${last.new}`)
    // a pathspec is a path, not a pattern
    expect((await diff('main', '*.txt')).status).toBe(404)
  })
})

describe('GET /files', () => {
  test('a directory (no .git), a text file, an image as itself, bytes as a download; leaving the root is 404', async () => {
    const top = (await b.json(`/files?pane=${paneOf('main')}`)) as any
    expect(top.path).toBe('')
    expect(top.entries.map((e: any) => [e.name, e.type])).toEqual(
      expect.arrayContaining([
        ['a.txt', 'file'],
        ['src', 'dir'],
        ['out', 'symlink'],
      ]),
    )
    expect(top.entries.some((e: any) => e.name === '.git')).toBe(false)
    expect(await b.json(`/files?pane=${paneOf('main')}&path=a.txt`)).toEqual({
      path: 'a.txt',
      size: statSync(join(R.main, 'a.txt')).size,
      mime: 'text/plain',
      text: readFileSync(join(R.main, 'a.txt'), 'utf8'),
      truncated: false,
    })
    const img = await b.get(`/files?pane=${paneOf('main')}&path=pic.png&raw=1`)
    expect([img.status, img.headers.get('content-type'), img.headers.get('content-disposition')]).toEqual([200, 'image/png', null])
    const bin = await b.get(`/files?pane=${paneOf('main')}&path=d.bin&raw=1`)
    expect([bin.headers.get('content-type'), bin.headers.get('content-disposition')]).toEqual(['application/octet-stream', 'attachment; filename="d.bin"'])
    expect(Buffer.from(await bin.arrayBuffer())).toEqual(readFileSync(join(R.main, 'd.bin')))
    // no symlink is followed below the root, even one that leads back inside
    for (const p of ['out/main/a.txt', '../', '..', 'out', 'out/plain/notes.md', '.git/config', 'src/../../plain/notes.md', '/etc/passwd', 'nope.txt']) {
      const r = await b.get(`/files?pane=${paneOf('main')}&path=${encodeURIComponent(p)}`)
      expect([p, r.status, await r.text()]).toEqual([p, 404, 'no such file'])
    }
    // outside git: the pane's directory is the base
    expect(((await b.json(`/files?pane=${paneOf('plain')}`)) as any).entries.map((e: any) => e.name)).toEqual(['notes.md'])
  })
})

describe('git is inert', () => {
  test('a repository whose config names commands for fsmonitor, pager, external diff, filters, textconv and hooks runs none; its index is never written', async () => {
    const index = join(R.hostile, '.git/index')
    const before = { bytes: readFileSync(index), mtime: statSync(index).mtimeMs }
    const c = await changes('hostile')
    expect(c.files).toEqual([{ path: 't.txt', status: 'modified', staged: false, additions: 1, deletions: 0, binary: false }])
    const d = (await (await diff('hostile', 't.txt')).json()) as any
    expect(d.hunks[0].lines.filter((l: any) => l.op === '+')).toEqual([{ op: '+', new: 4, text: 'line 4' }])
    expect((await b.get(`/files?pane=${paneOf('hostile')}&path=t.txt`)).status).toBe(200)
    expect(existsSync(marker())).toBe(false)
    expect(readFileSync(index)).toEqual(before.bytes)
    expect(statSync(index).mtimeMs).toBe(before.mtime)
    // the main repository's index too, after every call above
    const mainIndex = readFileSync(join(R.main, '.git/index'))
    await changes('main')
    await diff('main', 'a.txt')
    expect(readFileSync(join(R.main, '.git/index'))).toEqual(mainIndex)
  })
})
