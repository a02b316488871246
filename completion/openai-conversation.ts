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
 * What finds a conversation's session again: its caller (and the end user the request names in
 * `user`, for front ends that share one API key), agent and first user message (which every later
 * request of the conversation repeats). Several sessions may share it; continuesSession tells which
 * one the request continues.
 */
export function conversationKey(callerId: string, agentId: string, endUser: string | undefined, conversation: ReadConversation): string {
  return createHash('sha256')
    .update(JSON.stringify([callerId, agentId, endUser ?? null, firstQuestion(conversation).trim()]))
    .digest('hex');
}

/** The conversation's first user message: the question itself when it opens the conversation. */
export const firstQuestion = ({ question, history }: ReadConversation): string =>
  history.find((turn) => turn.role === 'user')?.content ?? question;

/** What an Idempotency-Key covers of a conversation: the question and the history it continues. */
export const conversationFingerprint = ({ question, history }: ReadConversation): string =>
  createHash('sha256')
    .update(JSON.stringify([question, history]))
    .digest('hex')
    .slice(0, 32);

const spoken = (turns: ConversationTurn[]) => turns.filter((turn) => turn.role !== 'system');

/**
 * One turn of the session as the caller sent it back: a user message unchanged; an answer as
 * recorded, or as it was streamed, where an earlier model step's text (before a tool call) came first.
 */
function sameTurn(mine: ConversationTurn, theirs: ConversationTurn): boolean {
  if (mine.role !== theirs.role) return false;
  const recorded = mine.content.trim();
  const sent = theirs.content.trim();
  return sent === recorded || (mine.role === 'assistant' && sent.endsWith(`\n\n${recorded}`));
}

/**
 * Whether a request's history is the session's conversation: the same user and assistant messages
 * in the same order (system messages aside); a conversation with none yet matches a session with
 * none. A session that keeps only its newest turns (`trimmed`) matches a history that ends with them.
 */
export function continuesSession(stored: ConversationTurn[], history: ConversationTurn[], trimmed: boolean): boolean {
  const mine = spoken(stored);
  const theirs = spoken(history);
  if (mine.length > theirs.length) return false;
  if (mine.length < theirs.length && !(trimmed && mine.length > 0)) return false;
  const offset = theirs.length - mine.length;
  return mine.every((turn, i) => sameTurn(turn, theirs[offset + i]!));
}
