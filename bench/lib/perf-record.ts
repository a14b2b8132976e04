import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';

export interface PerfRecording {
  /** Stops sampling and waits until perf has written its file. */
  stop(): Promise<void>;
  /** Ends perf at once, whatever its state (a run interrupted). */
  kill(): void;
}

/**
 * `perf record -g` on a running process into `file`, sampling from the moment this resolves: perf
 * starts with sampling off and switches it on through its control descriptors, so its own start-up
 * (reading the process's maps) falls outside the measured window.
 */
export async function startPerfRecord(pid: number, hz: number, file: string): Promise<PerfRecording> {
  const perf = spawn(
    'perf',
    // No build ids: they cost a read of the whole binary at the end, and a copy of it in ~/.debug.
    [
      'record',
      '-F',
      String(hz),
      '-g',
      '-p',
      String(pid),
      '-o',
      file,
      '--no-buildid',
      '--no-buildid-cache',
    ].concat(['-D', '-1', '--control', 'fd:3,4']),
    { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] },
  );
  const control = perf.stdio[3] as Writable;
  const ack = perf.stdio[4] as Readable;
  // A perf that fails closes these under a write or read; its exit says why, below.
  control.on('error', () => undefined);
  ack.on('error', () => undefined);
  let stderr = '';
  perf.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve, reject) => {
    perf.on('error', reject);
    // Asked to stop, perf ends by the signal it was sent.
    perf.on('close', (code, signal) =>
      code === 0 || signal === 'SIGINT'
        ? resolve()
        : reject(new Error(`perf record failed: ${stderr.trim()}`)),
    );
  });
  exited.catch(() => undefined);
  const command = (line: string) =>
    Promise.race([
      new Promise<void>((resolve) => {
        ack.once('data', () => resolve());
        control.write(`${line}\n`);
      }),
      exited.then(() => {
        throw new Error(`perf record ended before it was asked to: ${stderr.trim()}`);
      }),
    ]);
  await command('enable');
  return {
    async stop() {
      await command('disable');
      perf.kill('SIGINT');
      await exited;
    },
    kill() {
      if (perf.exitCode === null && perf.signalCode === null) perf.kill('SIGKILL');
    },
  };
}

/**
 * Why this machine cannot profile a process with perf and name a Go binary's functions, in one
 * line; undefined when it can. Tried on this process, which is as attachable as the server.
 */
export async function profilingProblem(hz: number, file: string): Promise<string | undefined> {
  if (spawnSync('perf', ['--version']).error)
    return 'needs perf on PATH (the linux-perf or linux-tools package)';
  if (spawnSync('go', ['version']).error)
    return 'needs Go on PATH: `go tool addr2line` names the functions of the stripped Temporal binary';
  try {
    const recording = await startPerfRecord(process.pid, hz, file);
    await recording.stop();
  } catch (err) {
    const paranoid = readFileSync('/proc/sys/kernel/perf_event_paranoid', 'utf8').trim();
    const said = (err as Error).message.split('\n').find((line) => line.trim()) ?? '';
    return `perf cannot attach to a process: run as root or with kernel.perf_event_paranoid at 1 or lower (it is ${paranoid}); ${said}`;
  }
  return undefined;
}
