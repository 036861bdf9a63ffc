/**
 * Layout of the state the main thread shares with the health thread: one Float64Array
 * over a SharedArrayBuffer, one slot each (services/health/health.ts writes,
 * services/health/health-thread.ts reads).
 */
export const SLOT = {
  /** ms since the epoch of the main event loop's last turn seen by the heartbeat timer */
  heartbeat: 0,
  /** 1 once every service of the process has started */
  started: 1,
  /** 1 while shutting down */
  draining: 2,
  /** 1 while a capability is near its in-flight limit (gateway) */
  overloaded: 3,
} as const;

/** Slots in the buffer. */
export const SLOTS = 4;
