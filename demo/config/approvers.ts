import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ApproverConfig, ApproversFile } from 'countersign';

export interface LoadedApprovers {
  approvers: ApproverConfig[];
  /** Set when no approvers file was given: the generated admin's token, for start-up to print. */
  adminToken?: string;
  adminTokenFile?: string;
  /** Likewise the demo's second approver, the `cfo`, whom a transfer over $100,000 needs as well. */
  cfoToken?: string;
  cfoTokenFile?: string;
}

/**
 * Approvers come from a JSON file (`{ approvers: [...] }`). With none, the demo's two are created:
 * an `admin`, and a `cfo` so that the large-transfer tier's two approvers can be met. Their tokens are
 * kept in `<dataDir>/admin-token` and `<dataDir>/cfo-token`, so they survive restarts.
 */
export function loadApprovers(options: { file?: string; dataDir: string }): LoadedApprovers {
  if (options.file) {
    const raw: unknown = JSON.parse(readFileSync(options.file, 'utf8'));
    const parsed = ApproversFile.safeParse(raw);
    if (!parsed.success)
      throw new Error(`invalid approvers file ${options.file}: ${z.prettifyError(parsed.error)}`);
    const ids = new Set<string>();
    const tokens = new Set<string>();
    for (const approver of parsed.data.approvers) {
      if (ids.has(approver.id))
        throw new Error(`approvers file ${options.file}: approver ${approver.id} is listed twice`);
      if (tokens.has(approver.token))
        throw new Error(`approvers file ${options.file}: two approvers share a token`);
      ids.add(approver.id);
      tokens.add(approver.token);
    }
    return { approvers: parsed.data.approvers };
  }
  const admin = keptToken(options.dataDir, 'admin-token');
  const cfo = keptToken(options.dataDir, 'cfo-token');
  return {
    approvers: [
      ApproverConfig.parse({
        id: 'admin',
        name: 'Administrator',
        email: 'admin@countersign.local',
        roles: ['admin'],
        token: admin.token,
      }),
      ApproverConfig.parse({
        id: 'cfo',
        name: 'Chief Financial Officer',
        email: 'cfo@countersign.local',
        roles: ['cfo'],
        token: cfo.token,
      }),
    ],
    adminToken: admin.token,
    adminTokenFile: admin.file,
    cfoToken: cfo.token,
    cfoTokenFile: cfo.file,
  };
}

/** A generated token, kept readable by its owner alone. */
function keptToken(dataDir: string, name: string): { token: string; file: string } {
  const file = path.join(dataDir, name);
  if (existsSync(file)) return { token: readFileSync(file, 'utf8').trim(), file };
  mkdirSync(dataDir, { recursive: true });
  const token = randomBytes(24).toString('base64url');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return { token, file };
}
