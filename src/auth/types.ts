// Who a bearer token belongs to, and the store behind pairing (bun:sqlite).

import type { Scope } from './scopes'

export type Principal = { kind: 'admin' } | { kind: 'device'; deviceId: string; scopes: Scope[] }

/** The admin token has every scope; a device has the ones it was paired with. */
export const hasScope = (p: Principal, s: Scope): boolean => p.kind === 'admin' || p.scopes.includes(s)

export interface Device {
  device_id: string
  name: string
  created_at: number
  last_seen_at: number | null
  scopes: Scope[]
}

export interface PairCode {
  code: string
  /** unix ms */
  expires_at: number
}

export type RedeemResult = { ok: true; device_id: string; token: string } | { ok: false; reason: 'invalid' | 'rate_limited' }

export interface AuthStore {
  /** The principal a bearer token belongs to (constant-time compares), or undefined. */
  identify(token: string | undefined | null): Principal | undefined
  /** A one-time code; the device that redeems it gets `scopes` (default: every scope but admin). */
  createPairCode(scopes?: readonly Scope[]): PairCode
  /** Redeems a one-time code for a device token (shown once, stored only as a hash). */
  redeem(code: string, deviceName: string, address: string): RedeemResult
  listDevices(): Device[]
  /** One device that is not revoked, or undefined. */
  device(deviceId: string): Device | undefined
  /** true when a device was revoked */
  revoke(deviceId: string): boolean
  /** Called after a device is revoked, so its open sockets can be closed. */
  onRevoke(listener: (deviceId: string) => void): () => void
  close(): void
}
