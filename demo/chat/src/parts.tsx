/**
 * An assistant message: its text, each tool call with its arguments, its approval (your decision, or
 * whom it waits for, or how it was decided) and its result, and Countersign's other data parts.
 */
import { getToolName, isToolUIPart, type ChatAddToolApproveResponseFunction } from 'ai';
import { useId, useState } from 'react';
import type { ApprovalData, ChatMessage, Requirement, RunData } from './messages.js';

type Part = ChatMessage['parts'][number];
type ToolPart = Extract<Part, { toolCallId: string }>;
type ApprovalPart = Extract<Part, { type: 'data-countersign-approval' }>;
type Answer = ChatAddToolApproveResponseFunction;

/** The inbox beside this page: `/chat/` is one level below it. */
const INBOX = '../';

const isApproval = (part: Part): part is ApprovalPart => part.type === 'data-countersign-approval';

export function AssistantParts({ message, answer }: { message: ChatMessage; answer: Answer }) {
  const calls = new Set(message.parts.filter(isToolUIPart).map((part) => part.toolCallId));
  const approvalsOf = (toolCallId: string) =>
    message.parts.filter(isApproval).filter((part) => part.data.toolCallId === toolCallId);
  // A data part stays where it first came and changes there: the run's status goes last.
  const parts = [
    ...message.parts.filter((part) => part.type !== 'data-countersign-run'),
    ...message.parts.filter((part) => part.type === 'data-countersign-run'),
  ];
  return parts.map((part, i) => {
    if (part.type === 'text')
      return (
        <p key={i} className="text">
          {part.text}
        </p>
      );
    if (isToolUIPart(part))
      return <ToolCall key={i} part={part} approvals={approvalsOf(part.toolCallId)} answer={answer} />;
    switch (part.type) {
      case 'data-countersign-approval':
        // Shown with its call; one whose call this message lacks (a step added to a plan), alone.
        return calls.has(part.data.toolCallId) ? null : <Approval key={i} approval={part.data} />;
      case 'data-countersign-refused':
        return (
          <p key={i} className="refused" role="alert">
            Your decision was refused ({part.data.code}): {part.data.reason}. Nothing changed.
          </p>
        );
      case 'data-countersign-run':
        return <Run key={i} run={part.data} />;
      default:
        return null;
    }
  });
}

function ToolCall({
  part,
  approvals,
  answer,
}: {
  part: ToolPart;
  approvals: ApprovalPart[];
  answer: Answer;
}) {
  const name = getToolName(part);
  return (
    <section className="tool" aria-label={`${name} call`}>
      <h3>
        Tool call <code>{name}</code>
      </h3>
      <pre className="args" aria-label="Arguments">
        {JSON.stringify(part.input, null, 2)}
      </pre>
      {approvals.map((approval) => (
        <Approval key={approval.id ?? approval.data.trackingId} approval={approval.data} />
      ))}
      {part.state === 'approval-requested' && <Decide approvalId={part.approval.id} answer={answer} />}
      {part.state === 'approval-responded' && (
        <p className="answered">
          You {part.approval.approved ? 'approved' : 'denied'} it
          {part.approval.reason ? `: “${part.approval.reason}”` : ''}.
        </p>
      )}
      {part.state === 'output-available' && (
        <>
          <h4>Result</h4>
          <pre className="output" aria-label="Result">
            {JSON.stringify(part.output, null, 2)}
          </pre>
        </>
      )}
      {part.state === 'output-denied' && <p className="denied">Not run: it was refused.</p>}
      {part.state === 'output-error' && <p className="failed">Failed: {part.errorText}</p>}
    </section>
  );
}

/** Approve, or deny with a reason the model reads. */
function Decide({ approvalId, answer }: { approvalId: string; answer: Answer }) {
  const [denying, setDenying] = useState(false);
  const [reason, setReason] = useState('');
  const reasonId = useId();
  if (!denying)
    return (
      <div className="decide" role="group" aria-label="Your decision">
        <button type="button" onClick={() => void answer({ id: approvalId, approved: true })}>
          Approve
        </button>
        <button type="button" onClick={() => setDenying(true)}>
          Deny
        </button>
      </div>
    );
  return (
    <form
      className="decide"
      aria-label="Deny"
      onSubmit={(event) => {
        event.preventDefault();
        void answer({ id: approvalId, approved: false, reason: reason.trim() });
      }}
    >
      <label htmlFor={reasonId}>Reason (the agent reads it)</label>
      <input id={reasonId} required autoFocus value={reason} onChange={(e) => setReason(e.target.value)} />
      <button type="submit">Send denial</button>
      <button type="button" onClick={() => setDenying(false)}>
        Cancel
      </button>
    </form>
  );
}

const owed = (requirement: Requirement) =>
  `${requirement.count - requirement.have} more of ${requirement.roles.join(' or ')} (${requirement.have} of ${requirement.count})`;

function Approval({ approval }: { approval: ApprovalData }) {
  const link = (
    <a href={`${INBOX}#/approvals/${encodeURIComponent(approval.trackingId)}`}>open it in the inbox</a>
  );
  if (approval.state === 'requested')
    return (
      <p className="approval">
        Your approval is asked: {approval.description}. Decide here, or {link}.
      </p>
    );
  if (approval.state === 'waiting') {
    const short = (approval.requirements ?? []).filter((r) => r.have < r.count);
    const signed = approval.signedBy?.length ? `; signed by ${approval.signedBy.join(', ')}` : '';
    return (
      <p className="approval waiting" role="status">
        Waiting for {short.map(owed).join(' and ') || 'others'}
        {signed}. They decide in the inbox, an email link or the CLI ({link}); this chat goes on when they do.
      </p>
    );
  }
  // "admin (approve via api)": who, what, and through which door.
  const decisions = (approval.decisions ?? []).map((d) => {
    const how = [d.decision, d.channel && `via ${d.channel}`].filter(Boolean).join(' ');
    return `${d.actor}${how ? ` (${how}${d.message ? `: “${d.message}”` : ''})` : ''}`;
  });
  return (
    <p className="approval decided">
      <span className="status">{approval.status}</span> by{' '}
      {decisions.join(', ') || (approval.by ?? []).join(', ')}.
    </p>
  );
}

function Run({ run }: { run: RunData }) {
  return (
    <p className="run">
      Run <a href={`${INBOX}#/runs/${encodeURIComponent(run.runId)}`}>{run.runId}</a>: {run.status}
      {run.reason ? ` (${run.reason})` : ''}
    </p>
  );
}
