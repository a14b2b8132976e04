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
}

/**
 * Approvers come from a JSON file (`{ approvers: [...] }`). With none, one `admin` approver is
 * created and its token kept in `<dataDir>/admin-token`, so it survives restarts.
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
  const tokenFile = path.join(options.dataDir, 'admin-token');
  let token: string;
  if (existsSync(tokenFile)) {
    token = readFileSync(tokenFile, 'utf8').trim();
  } else {
    mkdirSync(options.dataDir, { recursive: true });
    token = randomBytes(24).toString('base64url');
    writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  }
  const admin = ApproverConfig.parse({
    id: 'admin',
    name: 'Administrator',
    email: 'admin@countersign.local',
    roles: ['admin'],
    token,
  });
  return { approvers: [admin], adminToken: token, adminTokenFile: tokenFile };
}
