import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { SEARCH_ATTRIBUTES } from '../protocol/search-attributes.js';

/** Typed keys for Countersign's search attributes, shared by the workflow and the clients that start runs. */
export const searchAttributeKeys = {
  pending: defineSearchAttributeKey(SEARCH_ATTRIBUTES.pending.name, SearchAttributeType.INT),
  agent: defineSearchAttributeKey(SEARCH_ATTRIBUTES.agent.name, SearchAttributeType.KEYWORD),
  status: defineSearchAttributeKey(SEARCH_ATTRIBUTES.status.name, SearchAttributeType.KEYWORD),
  requester: defineSearchAttributeKey(SEARCH_ATTRIBUTES.requester.name, SearchAttributeType.KEYWORD),
  pendingTools: defineSearchAttributeKey(
    SEARCH_ATTRIBUTES.pendingTools.name,
    SearchAttributeType.KEYWORD_LIST,
  ),
  pendingRoles: defineSearchAttributeKey(
    SEARCH_ATTRIBUTES.pendingRoles.name,
    SearchAttributeType.KEYWORD_LIST,
  ),
  changedAt: defineSearchAttributeKey(SEARCH_ATTRIBUTES.changedAt.name, SearchAttributeType.DATETIME),
};
