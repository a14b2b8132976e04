export { defineTool, toToolSpec, type ToolContext, type ToolDefinition } from './tool.js';
export { defineAgent, toAgentSpec, type AgentDefinition } from './agent.js';
