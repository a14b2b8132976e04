import { readFileSync } from 'node:fs';

// Linux reports CPU times in clock ticks; USER_HZ is 100 on every mainstream kernel build.
const TICKS_PER_SECOND = 100;

/** User plus system CPU milliseconds a live process has used, all of its threads included. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces; fields after it are split from the closing paren.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1000) / TICKS_PER_SECOND;
}

/** Resident set size of a live process, in bytes. */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  return match ? Number(match[1]) * 1024 : Number.NaN;
}
