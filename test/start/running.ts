import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startCountersign, type Countersign } from '../../demo/main/start.js';
import type { ApprovalView, Decision, RunEvent, TranscriptMessage } from '../../protocol/index.js';

export interface RunDetail {
  runId: string;
  status: 'running' | 'waiting' | 'paused' | 'completed' | 'failed' | 'cancelled';
  transcript: TranscriptMessage[];
  pending: ApprovalView[];
  approvals: ApprovalView[];
  audit: RunEvent[];
  output?: string;
}

/** One task queue per test process, so test files sharing a real Temporal never take each other's runs. */
const taskQueue = `countersign-test-${randomUUID()}`;

/** Settings for a test: no real model, no approvers file, data in a temp dir. */
export function testEnv(dataDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    COUNTERSIGN_DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    TEMPORAL_TASK_QUEUE: taskQueue,
  };
  for (const name of [
    'OPENAI_API_KEY',
    'OPENAI_BASE_URL',
    'COUNTERSIGN_APPROVERS_FILE',
    'SMTP_URL',
    'COUNTERSIGN_PUBLIC_URL',
    'COUNTERSIGN_PAYLOAD_KEYS',
    'COUNTERSIGN_SECRET_KEYS',
    'COUNTERSIGN_CODEC_CORS_ORIGINS',
    'PORT',
  ]) {
    delete env[name];
  }
  return env;
}

/** `npm start`'s entry point on free ports over a temp data dir, with REST helpers. */
export class Running {
  private constructor(
    readonly countersign: Countersign,
    readonly dataDir: string,
    private readonly ownsDir: boolean,
  ) {}

  /** `settings` are added to the test's environment (COUNTERSIGN_PAYLOAD_KEYS...). */
  static async start(dataDir?: string, settings: NodeJS.ProcessEnv = {}): Promise<Running> {
    const dir = dataDir ?? mkdtempSync(path.join(tmpdir(), 'countersign-start-'));
    const countersign = await startCountersign({
      env: { ...testEnv(dir), ...settings },
      port: 0,
      devServerPorts: { port: 0, uiPort: 0 },
    });
    return new Running(countersign, dir, dataDir === undefined);
  }

  get url(): string {
    return this.countersign.url;
  }

  get token(): string {
    assert.ok(this.countersign.adminToken);
    return this.countersign.adminToken;
  }

  async api<T>(
    method: string,
    route: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: T }> {
    const response = await fetch(this.url + route, {
      method,
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as T };
  }

  async startRun(agent: string, input: string): Promise<string> {
    const answer = await this.api<{ runId: string }>('POST', '/api/runs', { agent, input });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    return answer.body.runId;
  }

  /** The run as the API shows it; a 5xx (a query timing out on a loaded machine) is asked again. */
  async run(runId: string): Promise<RunDetail> {
    for (;;) {
      const answer = await this.api<RunDetail>('GET', `/api/runs/${runId}`);
      if (answer.status === 200) return answer.body;
      assert.ok(
        answer.status >= 500,
        `GET /api/runs/${runId}: ${answer.status} ${JSON.stringify(answer.body)}`,
      );
      await sleep(200);
    }
  }

  /** Polls the run until it ends or waits on an approval not in `seen`. */
  async next(runId: string, seen: Set<string> = new Set()): Promise<RunDetail> {
    for (;;) {
      const run = await this.run(runId);
      if (['completed', 'failed', 'cancelled'].includes(run.status)) return run;
      const fresh = run.pending.filter((a) => !seen.has(a.trackingId));
      if (fresh.length > 0) return { ...run, pending: fresh };
      await sleep(100);
    }
  }

  /** The run's one new pending approval, asserting there is exactly one. */
  async pendingOne(runId: string, seen: Set<string> = new Set()): Promise<ApprovalView> {
    const run = await this.next(runId, seen);
    assert.equal(
      run.pending.length,
      1,
      `run ${runId} is ${run.status} with ${run.pending.length} new approvals`,
    );
    seen.add(run.pending[0]!.trackingId);
    return run.pending[0]!;
  }

  /**
   * Decides as a person who just read the approval: on the revision it shows now. The admin by
   * default; `token` is another approver's (the demo's `cfo`).
   */
  async decide(
    trackingId: string,
    decision: Decision,
    token = this.token,
  ): Promise<{ status: number; body: unknown }> {
    const shown = await fetch(`${this.url}/api/approvals/${trackingId}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return this.api('POST', `/api/approvals/${trackingId}/decision`, decision, {
      authorization: `Bearer ${token}`,
      'if-match': shown.headers.get('etag') ?? '',
    });
  }

  /** Decides and asserts the workflow took the decision. */
  async settle(trackingId: string, decision: Decision, token = this.token): Promise<void> {
    const answer = await this.decide(trackingId, decision, token);
    assert.ok(
      answer.status === 200 || answer.status === 202,
      `${answer.status} ${JSON.stringify(answer.body)}`,
    );
  }

  /** Waits for the run to end and returns it. */
  async finished(runId: string): Promise<RunDetail> {
    const run = await this.next(runId, new Set((await this.run(runId)).pending.map((a) => a.trackingId)));
    assert.equal(run.status, 'completed', JSON.stringify(run.pending));
    return run;
  }

  async stop(): Promise<void> {
    await this.countersign.stop();
    if (this.ownsDir) rmSync(this.dataDir, { recursive: true, force: true });
  }
}
