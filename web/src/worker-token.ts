// The device token, copied where the service worker can read it: a notification's
// button answers with it while no page of the app is open. IndexedDB, because a
// worker cannot read localStorage; same origin only, like the token itself.
const DB = 'gothalo'
const STORE = 'kv'

function withStore(mode: IDBTransactionMode, f: (s: IDBObjectStore) => void): Promise<void> {
  return new Promise((resolve) => {
    if (typeof indexedDB === 'undefined') return resolve()
    const open = indexedDB.open(DB, 1)
    open.onupgradeneeded = () => open.result.createObjectStore(STORE)
    open.onerror = () => resolve()
    open.onsuccess = () => {
      const db = open.result
      try {
        const tx = db.transaction(STORE, mode)
        f(tx.objectStore(STORE))
        tx.oncomplete =
          tx.onerror =
          tx.onabort =
            () => {
              db.close()
              resolve()
            }
      } catch {
        db.close()
        resolve()
      }
    }
  })
}

/** Keeps `token` for the worker (null: forgets it, as when the device is unpaired). */
export function shareTokenWithWorker(token: string | null): Promise<void> {
  return withStore('readwrite', (s) => (token ? s.put(token, 'token') : s.delete('token')))
}

/** What "Share → gothalo" left for the app (the worker keeps it), taken once: read and deleted. */
export function takeShared(): Promise<{ files: File[]; text: string } | null> {
  return new Promise((resolve) => {
    if (typeof indexedDB === 'undefined') return resolve(null)
    const open = indexedDB.open(DB, 1)
    open.onupgradeneeded = () => open.result.createObjectStore(STORE)
    open.onerror = () => resolve(null)
    open.onsuccess = () => {
      const db = open.result
      try {
        const tx = db.transaction(STORE, 'readwrite')
        const get = tx.objectStore(STORE).get('shared')
        get.onsuccess = () => {
          tx.objectStore(STORE).delete('shared')
          const v = get.result as { files?: File[]; text?: string } | undefined
          resolve(v ? { files: v.files ?? [], text: v.text ?? '' } : null)
        }
        tx.oncomplete = tx.onerror = tx.onabort = () => db.close()
      } catch {
        db.close()
        resolve(null)
      }
    }
  })
}
