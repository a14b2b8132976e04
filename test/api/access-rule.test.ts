import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AccessRule } from '../../api/access.js';
import { apiTestAgents } from '../support/api-agents.js';

const rule = new AccessRule(apiTestAgents);

test('the list clause selects what mayRead allows: requester, agents by role, pending roles', () => {
  assert.equal(rule.listClause({ id: 'ada', roles: ['admin'] }), undefined, 'an admin reads every run');
  const clause = rule.listClause({ id: "o'neil", roles: ['treasurer'] })!;
  assert.match(clause, /^\(CountersignRequester = 'o''neil' OR /);
  assert.match(clause, /CountersignPendingRoles IN \('treasurer'\)\)$/);
});

test('a caller holding no role reads only the runs they asked for, and the clause is still a query', () => {
  const clause = rule.listClause({ id: 'nobody', roles: [] });
  assert.equal(clause, "(CountersignRequester = 'nobody')");
  assert.equal(
    rule.mayRead({ id: 'nobody', roles: [] }, { agent: 'bank', pendingRoles: ['treasurer'] }),
    false,
  );
  assert.equal(
    rule.mayRead({ id: 'nobody', roles: [] }, { agent: 'bank', requester: 'nobody', pendingRoles: [] }),
    true,
  );
});
