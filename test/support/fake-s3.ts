import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { freePort } from '../../temporal/dev-server.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const PIN = 'scripts/test-requirements.txt';

/** moto's S3 in server mode, on a port of its own, with one empty bucket. */
export interface FakeS3 {
  endpoint: string;
  bucket: string;
  /** A real SDK client for it: path-style URLs and dummy credentials, as for MinIO. */
  client: S3Client;
  stop(): Promise<void>;
}

/** `moto_server` from this checkout's .venv (where `npm ci` installs it), else from PATH. */
function motoServer(): string {
  const venv = path.join(root, '.venv', process.platform === 'win32' ? 'Scripts' : 'bin', 'moto_server');
  if (existsSync(venv)) return venv;
  const onPath = (process.env.PATH ?? '')
    .split(path.delimiter)
    .map((dir) => path.join(dir, 'moto_server'))
    .find((file) => existsSync(file));
  if (onPath) return onPath;
  // Not a skip: a suite that silently leaves the S3 store untested would pass for the wrong reason.
  throw new Error(
    `no moto_server, the fake S3 these tests run against: \`npm ci\` installs it into .venv, or run ` +
      `.venv/bin/python -m pip install -r ${PIN} (moto's S3 server at the version pinned there)`,
  );
}

/** Starts moto's server and waits until it answers; `stop` ends it. */
export async function startFakeS3(): Promise<FakeS3> {
  const executable = motoServer();
  const port = await freePort();
  const child = spawn(executable, ['-H', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);
  let log = '';
  child.stderr.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
  let ended: string | undefined;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      ended = `exited (${signal ?? `code ${code}`})`;
      resolve();
    }),
  );
  child.once('error', (error) => (ended = `could not run ${executable}: ${error.message}`));

  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  const stop = async () => {
    client.destroy();
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    process.off('exit', killOnExit);
  };
  // Plain HTTP until it answers at all: a refused connection fails at once, where the SDK would
  // back off and retry.
  const answers = () =>
    fetch(endpoint).then(
      () => true,
      () => false,
    );
  const deadline = Date.now() + 30_000;
  while (!(await answers())) {
    if (ended || Date.now() > deadline) {
      await stop();
      throw new Error(`moto_server did not start on port ${port}: ${ended ?? 'no answer in 30 s'}\n${log}`);
    }
    await sleep(100);
  }
  const bucket = `countersign-${randomUUID()}`;
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return { endpoint, bucket, client, stop };
}
