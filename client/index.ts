export { startRun, type StartRunOptions } from './start-run.js';
export { sendDecision, UnknownApprovalError } from './decide.js';
export { supplySecret, type SecretSupply } from './supply-secret.js';
export { registerSearchAttributes } from './register-search-attributes.js';
export {
  getDecisionOutcome,
  getFinalState,
  getRunEvents,
  getRunState,
  cancelRun,
  pauseRun,
  resumeRun,
} from './runs.js';
export { listPendingApprovals, type PendingApprovalFilter } from './approvals.js';
