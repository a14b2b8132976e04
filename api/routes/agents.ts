import { Router } from 'express';
import { toAgentSpec } from '../../define/index.js';
import type { ApiOptions } from '../context.js';
import type { AgentList } from '../schemas.js';

export function agentsRouter(options: ApiOptions): Router {
  const router = Router();
  // Specs are derived once: agents are static configuration.
  const body: AgentList = { agents: options.agents.map((a) => toAgentSpec(a, options.defaultModel)) };
  router.get('/', (_req, res) => {
    res.json(body);
  });
  return router;
}
