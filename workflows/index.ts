export { agentWorkflow } from './agent-workflow.js';
