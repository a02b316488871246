import { Allow, parse as parsePartialJson } from 'partial-json';
import { z } from 'zod';

/**
 * What the `llm` review processor asks of the model: a JSON object (OpenAI structured output)
 * holding the Markdown report shown to the user and the findings, each with its severity. The
 * counts of `review.completed` come from the findings, never from text in the report.
 */
export const REVIEW_INSTRUCTIONS = [
  'You are reviewing a code change given as a unified diff (in the message or an attached file).',
  'Review only what the change adds or modifies; use the surrounding context to understand it.',
  'Answer with a JSON object with two fields:',
  '- `report`: the review in Markdown for the reader: each finding with its file and line, the problem and a concrete fix,',
  '  then a short summary of the change and of the most important findings ("No issues found." when there are none).',
  '- `findings`: every finding of the report once, as {"severity", "file", "line", "message"}; `line` is null when no single line applies.',
  'Severities: "critical" for bugs, security vulnerabilities, data loss or crashes; "warning" for likely problems, missing error',
  'handling, risky or hard-to-maintain code; "info" for style, naming, documentation and small improvements.',
].join('\n');

const MAX_FINDINGS = 500;

/** The model's answer, validated: what the counts are taken from. */
const reviewOutput = z
  .object({
    report: z.string().trim().min(1).max(200_000),
    findings: z
      .array(
        z
          .object({
            severity: z.enum(['critical', 'warning', 'info']),
            file: z.string().max(1000),
            line: z.number().int().min(0).nullable(),
            message: z.string().max(5000),
          })
          .strict(),
      )
      .max(MAX_FINDINGS),
  })
  .strict();

export type ReviewOutput = z.infer<typeof reviewOutput>;

/**
 * The same shape as a JSON Schema for the provider's `response_format` (strict mode: every
 * property required, no others). `report` comes first so that, streamed, the reader's text starts
 * at once; limits are enforced by `reviewOutput` on receipt.
 */
export const REVIEW_RESPONSE_FORMAT = {
  name: 'code_review',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['report', 'findings'],
    properties: {
      report: { type: 'string', description: 'the review in Markdown' },
      findings: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['severity', 'file', 'line', 'message'],
          properties: {
            severity: { type: 'string', enum: ['critical', 'warning', 'info'] },
            file: { type: 'string' },
            line: { type: ['integer', 'null'] },
            message: { type: 'string' },
          },
        },
      },
    },
  },
} as const;

export class InvalidReviewOutputError extends Error {
  override readonly name = 'InvalidReviewOutputError';
}

/** The model's answer as a validated review, or InvalidReviewOutputError saying what is wrong. */
export function parseReviewOutput(text: string): ReviewOutput {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new InvalidReviewOutputError('the review is not the JSON object asked for');
  }
  const result = reviewOutput.safeParse(json);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new InvalidReviewOutputError(
      `the review does not match its schema at ${['review', ...issue.path.map(String)].join('.')}: ${issue.message}`,
    );
  }
  return result.data;
}

/** The Markdown report inside a review still being streamed ('' until its text begins). */
export function streamedReport(partialJson: string): string {
  try {
    const partial = parsePartialJson(partialJson, Allow.STR | Allow.OBJ | Allow.ARR) as unknown;
    const report = (partial as { report?: unknown } | null)?.report;
    return typeof report === 'string' ? report : '';
  } catch {
    return '';
  }
}
