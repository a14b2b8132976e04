import { HELPDESK_AGENT } from '../agents/helpdesk.js';
import { CHAT_AGENT } from './chat-page.js';

export interface BannerFacts {
  url: string;
  adminToken?: string;
  adminTokenFile?: string;
  cfoToken?: string;
  cfoTokenFile?: string;
  approversFile?: string;
  outbox: string;
  temporal: string;
  temporalUi?: string;
  notes?: string[];
  model: string;
  agents: string[];
  /** How payloads are kept, when they are encrypted. */
  encryption?: string;
  /** Which keys seal the secrets people supply to tools. */
  secretKeys?: string;
  /** The signing secret's key id: the same on every instance that shares the secret. */
  signingKeyId: string;
  /** Where large tool outputs go, and that store's id. */
  contentStore: { dir: string; id: string };
}

const DEMO_INPUT = 'Transfer $2,500 from 4242 4242 4242 4242 to 5555 5555 5555 4444';

/** What `npm start` prints: where everything is, and one command that shows the point of it. */
export function banner(f: BannerFacts): string {
  const token = f.adminToken ?? '$COUNTERSIGN_TOKEN';
  const body = JSON.stringify({ agent: 'bank-transfer', input: DEMO_INPUT });
  return [
    '',
    'Countersign is running.',
    '',
    `  Inbox:        ${f.url}/`,
    ...(f.agents.includes(CHAT_AGENT)
      ? [
          `  Chat:         ${f.url}/chat/  (ask the ${CHAT_AGENT} agent for a transfer, approve it in the chat)`,
        ]
      : []),
    f.adminToken
      ? `  Admin token:  ${f.adminToken}  (kept in ${f.adminTokenFile})`
      : `  Approvers:    ${f.approversFile}`,
    ...(f.cfoToken
      ? [
          `  CFO token:    ${f.cfoToken}  (kept in ${f.cfoTokenFile}; the second approver a transfer over $100,000 needs)`,
        ]
      : []),
    `  Outbox:       ${f.outbox}  (approval emails land here as .eml files)`,
    `  Temporal:     ${f.temporal}`,
    ...(f.temporalUi ? [`  Temporal UI:  ${f.temporalUi}  (each run's history, event by event)`] : []),
    `  Model:        ${f.model}`,
    `  Agents:       ${f.agents.join(', ')}`,
    ...(f.agents.includes(HELPDESK_AGENT)
      ? [
          `  Helpdesk:     its tools come from the demo's ticket system, an MCP server over stdio; "Close ticket T-1002 as resolved" waits for your approval`,
        ]
      : []),
    ...(f.encryption ? [`  Encryption:   ${f.encryption}`] : []),
    ...(f.secretKeys ? [`  Secret keys:  ${f.secretKeys}`] : []),
    `  Signing key:  id ${f.signingKeyId}  (every instance of this task queue shows the same: COUNTERSIGN_SIGNING_SECRET)`,
    `  Outputs:      ${f.contentStore.dir}, store id ${f.contentStore.id}  (one store for every instance: COUNTERSIGN_CONTENT_DIR)`,
    '',
    'Start a demo run (a transfer over $1,000 waits for your approval):',
    '',
    `  curl -s -X POST ${f.url}/api/runs \\`,
    `    -H 'Authorization: Bearer ${token}' -H 'Content-Type: application/json' \\`,
    `    -d '${body}'`,
    '',
    `Then approve it in the inbox at ${f.url}/, or from a terminal: npx countersign approvals list`,
    'Press Ctrl-C to stop.',
    ...(f.notes ?? []).map((note) => `Note: ${note}.`),
    '',
  ].join('\n');
}
