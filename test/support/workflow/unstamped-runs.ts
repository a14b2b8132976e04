/**
 * Workflow interceptors (bundled into a test worker's workflows) that make the runs this worker
 * steps look like runs started before runs stamped their change time: the commands that record the
 * patch and write `CountersignChangedAt` are dropped before they reach the server (in a run of the
 * current generation, which stamps without asking the patch, the stamps alone), so the history holds
 * no stamp, as an older release's history. They are dropped alike when the run replays.
 */
import type { WorkflowInterceptors } from '@temporalio/workflow';
import { SEARCH_ATTRIBUTES } from '../../../protocol/search-attributes.js';
import { CHANGE_TIME_PATCH } from '../../../workflows/patches.js';

export const interceptors = (): WorkflowInterceptors => ({
  internals: [
    {
      concludeActivation(input, next) {
        const commands = input.commands.filter((command) => {
          if (command.setPatchMarker?.patchId === CHANGE_TIME_PATCH) return false;
          const fields = command.upsertWorkflowSearchAttributes?.searchAttributes?.indexedFields;
          if (!fields) return true;
          delete fields[SEARCH_ATTRIBUTES.changedAt.name];
          return Object.keys(fields).length > 0;
        });
        return next({ ...input, commands });
      },
    },
  ],
});
