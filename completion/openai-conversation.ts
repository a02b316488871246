import { createHash } from 'node:crypto';
import { invalid } from '../common/errors';
import type { OpenAiChatMessage } from '../common/schemas/openai';

/** A message of an OpenAI conversation as a session holds it. */
export interface ConversationTurn {
  role: 'user' | 'assistant' | 'system';
  content: string;
}

/** What an OpenAI chat request asks: its last message (the question) and the conversation before it. */
export interface ReadConversation {
  question: string;
  /** The messages before the question, in order (`developer` read as `system`). */
  history: ConversationTurn[];
}

/** The contract's question limit (CompletionRequest.question). */
const QUESTION_MAX_CHARS = 32_000;

const fieldOf = (index: number, part: string) => `body.messages.${index}.${part}`;

/** The text of a message's content: a string, or text parts joined; other parts are refused by name. */
function textOf(message: OpenAiChatMessage, index: number): string {
  const { content } = message;
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part, p) => {
      if (part.type !== 'text' || typeof part.text !== 'string') {
        const field = `${fieldOf(index, 'content')}.${p}.type`;
        throw invalid(`${field}: only text content is supported (got ${part.type})`, { field });
      }
      return part.text;
    })
    .join('');
}

/**
 * Reads the request's messages: the last must be the user's (the question); tool and function
 * messages, and assistant tool calls, belong to caller-sent tools, which the agent does not take.
 */
export function readConversation(messages: OpenAiChatMessage[]): ReadConversation {
  const turns = messages.map((message, index): ConversationTurn => {
    if (message.role === 'tool' || message.role === 'function') {
      const field = fieldOf(index, 'role');
      throw invalid(`${field}: ${message.role} messages answer caller-sent tools, which are not supported`, { field });
    }
    if (message.role === 'assistant' && Array.isArray((message as { tool_calls?: unknown }).tool_calls)) {
      const field = fieldOf(index, 'tool_calls');
      throw invalid(`${field}: tool calls belong to caller-sent tools, which are not supported`, { field });
    }
    return { role: message.role === 'developer' ? 'system' : message.role, content: textOf(message, index) };
  });
  const last = turns.length - 1;
  const asked = turns[last]!;
  if (asked.role !== 'user') {
    const field = fieldOf(last, 'role');
    throw invalid(`${field}: the last message must be the user's question`, { field });
  }
  const question = asked.content.trim();
  if (question === '' || question.length > QUESTION_MAX_CHARS) {
    const field = fieldOf(last, 'content');
    throw invalid(`${field}: the question must have 1 to ${QUESTION_MAX_CHARS} characters`, { field });
  }
  return { question, history: turns.slice(0, last) };
}

/**
 * What finds a conversation's session again: its caller, agent and first user message (which every
 * later request of the conversation repeats). Several sessions may share it; continuesSession tells
 * which one the request continues.
 */
export function conversationKey(callerId: string, agentId: string, { question, history }: ReadConversation): string {
  const first = history.find((turn) => turn.role === 'user')?.content.trim() ?? question;
  return createHash('sha256')
    .update(JSON.stringify([callerId, agentId, first]))
    .digest('hex');
}

const spoken = (turns: ConversationTurn[]) => turns.filter((turn) => turn.role !== 'system').map((turn) => turn.content.trim());

/**
 * Whether a request's history is the session's conversation: the same user and assistant messages
 * in the same order (system messages aside). A session that keeps only its newest turns
 * (`trimmed`) matches a history that ends with them.
 */
export function continuesSession(stored: ConversationTurn[], history: ConversationTurn[], trimmed: boolean): boolean {
  const mine = spoken(stored);
  const theirs = spoken(history);
  if (mine.length === 0 || mine.length > theirs.length) return false;
  if (mine.length < theirs.length && !trimmed) return false;
  const offset = theirs.length - mine.length;
  return mine.every((content, i) => content === theirs[offset + i]);
}
