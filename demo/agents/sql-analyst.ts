import path from 'node:path';
import { z } from 'zod';
import { defineAgent, defineTool, type JsonValue } from 'countersign';
import { demoApprovers } from './approvers.js';
import { SAMPLE_SCHEMA, ensureSampleDatabase, runReadOnlyQuery } from './sample-db.js';

export function sqlAnalystAgent(dataDir: string) {
  const file = path.join(dataDir, 'demo', 'sample.db');

  const query = defineTool({
    name: 'execute_sql_query',
    description:
      'Run one read-only SQL query (SQLite dialect) against the sample sales database. At most 100 rows come back.',
    parameters: z.object({ sql: z.string().min(1).max(10_000).describe('One SELECT statement') }),
    // Read-only: another attempt has no lasting effect.
    idempotent: true,
    approval: {
      ...demoApprovers('analyst'),
      editableFields: ['sql'],
      description: 'Run this query on the sample database: {{sql}}',
    },
    execute: async ({ sql }): Promise<JsonValue> => {
      ensureSampleDatabase(file);
      try {
        return { ok: true, sql, ...runReadOnlyQuery(file, sql) };
      } catch (error) {
        // A bad query is an answer for the model to read, not a reason to retry the activity.
        return { ok: false, sql, error: (error as Error).message };
      }
    },
  });

  return defineAgent({
    name: 'sql-analyst',
    description:
      'Answers questions about the sample sales database; an analyst reviews each query (and the plan of a multi-query analysis).',
    instructions: [
      'You are a data analyst. Answer with SQL against this SQLite schema:',
      SAMPLE_SCHEMA.trim(),
      'Always include a LIMIT. For an analysis that needs several queries, propose them together in one turn: the analyst reviews them as a plan.',
      'If the analyst rejects a query, do not run it again; say what you could not answer.',
    ].join('\n'),
    planReview: true,
    tools: [query],
  });
}
