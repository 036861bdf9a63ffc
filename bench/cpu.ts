/**
 * CPU time of processes, from Linux's /proc/<pid>/stat (utime + stime, proc(5)), for the
 * benchmarks' CPU per request: a process's own CPU time over a run divided by what it did.
 */
import { readFileSync } from 'node:fs';

/**
 * CPU seconds (user + system, all threads) a process has used so far; NaN where /proc
 * cannot be read (not Linux, or the process is gone).
 */
export function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return NaN;
  }
}

/** CPU seconds of named processes over a stretch of time. */
export class CpuMeter {
  private start: Record<string, number> = {};
  /** @param pids process id by service name */
  constructor(private readonly pids: Record<string, number>) {}
  /** Starts (or restarts) the stretch. */
  begin(): void { this.start = Object.fromEntries(Object.entries(this.pids).map(([n, pid]) => [n, cpuSeconds(pid)])); }
  /** CPU seconds of each process since {@link begin}. */
  end(): Record<string, number> {
    return Object.fromEntries(Object.entries(this.pids).map(([n, pid]) => [n, cpuSeconds(pid) - this.start[n]!]));
  }
}
