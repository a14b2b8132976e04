import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runStatusClause, runStatusOf } from '../../api/run-status.js';
import { compileFilter } from '../../devserver/list-filter.js';
import { SYSTEM_ATTRIBUTES } from '../../devserver/search-attributes.js';
import { STATUS_NAMES } from '../../devserver/visibility.js';
import { RunStatus, SEARCH_ATTRIBUTES } from '../../protocol/index.js';

test('a status filter selects exactly the runs the list shows with that status', () => {
  const resolve = (name: string) =>
    name === SEARCH_ATTRIBUTES.status.name ? 'Keyword' : SYSTEM_ATTRIBUTES[name];
  const filters = RunStatus.options.map((status) => ({
    status,
    filter: compileFilter(runStatusClause(status), resolve),
  }));
  // Every execution status with every value the run's own attribute can hold, including none.
  for (const [execution, name] of Object.entries(STATUS_NAMES)) {
    for (const own of [undefined, ...RunStatus.options, 'unknown']) {
      const shown = runStatusOf(Number(execution), own);
      const row = {
        get: (attribute: string) =>
          attribute === 'ExecutionStatus'
            ? name
            : attribute === SEARCH_ATTRIBUTES.status.name
              ? (own ?? null)
              : null,
      };
      const selectedBy = filters.filter(({ filter }) => filter.matches(row)).map(({ status }) => status);
      assert.deepEqual(selectedBy, [shown], `${name} with own status ${own ?? 'unset'}`);
    }
  }
});
