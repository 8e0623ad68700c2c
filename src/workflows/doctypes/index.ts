import workflowActionMaster from './workflow-action-master.json' with { type: 'json' };
import workflowActionPermittedRole from './workflow-action-permitted-role.json' with { type: 'json' };
import workflowAction from './workflow-action.json' with { type: 'json' };
import workflowDocumentState from './workflow-document-state.json' with { type: 'json' };
import workflowState from './workflow-state.json' with { type: 'json' };
import workflowTransition from './workflow-transition.json' with { type: 'json' };
import workflow from './workflow.json' with { type: 'json' };

/** The reference's workflow DocTypes, children and linked masters first; checked and frozen with the core DocTypes. */
export const WORKFLOW_DOCTYPE_JSON: readonly unknown[] = [
  workflowState,
  workflowActionMaster,
  workflowDocumentState,
  workflowTransition,
  workflow,
  workflowActionPermittedRole,
  workflowAction,
];

export const WORKFLOW = 'Workflow';
export const WORKFLOW_STATE = 'Workflow State';
export const WORKFLOW_ACTION_MASTER = 'Workflow Action Master';
export const WORKFLOW_DOCUMENT_STATE = 'Workflow Document State';
export const WORKFLOW_TRANSITION = 'Workflow Transition';
export const WORKFLOW_ACTION = 'Workflow Action';
export const WORKFLOW_ACTION_PERMITTED_ROLE = 'Workflow Action Permitted Role';
