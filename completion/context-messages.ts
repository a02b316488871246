import type { ChatMessage } from '../common/chat-model';
import type { AttachmentText, CompletionInput, Passage } from './run-input';

/**
 * The messages of the first model call: the system prompt (with retrieved passages to cite), the
 * session's earlier turns, then the question with the attachments' text. Pure: runs in workflows.
 */
export function firstMessages(input: CompletionInput, passages: Passage[], attachments: AttachmentText[]): ChatMessage[] {
  const system = [input.systemPrompt.trim()];
  if (passages.length > 0) {
    system.push(
      'Answer from the knowledge-base passages below. Cite each passage you use as [n]. If they do not answer the question, say so.',
      passages.map((p) => `[${p.index}] (${p.doc_name})\n${p.content}`).join('\n\n'),
    );
  } else if (input.route.scenario === 'kbqa') {
    system.push('No knowledge-base passage matches the question. Say that the knowledge bases hold no answer; do not invent one.');
  }
  const user =
    attachments.length > 0
      ? `${input.question}\n\n${attachments
          .map((a) => `--- attachment ${a.name} (${a.file_id})${a.truncated ? ', truncated' : ''} ---\n${a.text}`)
          .join('\n\n')}`
      : input.question;
  return [
    ...(system.some((s) => s.length > 0) ? [{ role: 'system' as const, content: system.filter(Boolean).join('\n\n') }] : []),
    ...input.history,
    { role: 'user', content: user },
  ];
}
