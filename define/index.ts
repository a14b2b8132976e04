export { defineTool, toToolSpec, type ToolContext, type ToolDefinition } from './tool.js';
export { OutcomeUnknownError } from './outcome-unknown.js';
export { defineAgent, toAgentSpec, type AgentDefinition } from './agent.js';
