// Open sockets by device, so revoking a device closes its sockets at once.
import type { Principal } from '../auth/types'

export class SocketRegistry {
  private byDevice = new Map<string, Set<() => void>>()

  /** Registers a socket's close function; returns the unregister function. */
  add(principal: Principal | undefined, close: () => void): () => void {
    if (principal?.kind !== 'device') return () => {}
    const id = principal.deviceId
    let set = this.byDevice.get(id)
    if (!set) this.byDevice.set(id, (set = new Set()))
    set.add(close)
    return () => {
      set!.delete(close)
      if (set!.size === 0 && this.byDevice.get(id) === set) this.byDevice.delete(id)
    }
  }

  closeDevice(deviceId: string): number {
    const set = this.byDevice.get(deviceId)
    if (!set) return 0
    this.byDevice.delete(deviceId)
    for (const close of set) close()
    return set.size
  }

  count(): number {
    let n = 0
    for (const s of this.byDevice.values()) n += s.size
    return n
  }
}
