import MarkdownIt from 'markdown-it';
import { type Block, type ExtractedDocument } from '../document-model';
import { decodeText, normaliseLineEnds } from './decode-text';
import { htmlToMarkdown } from './html-to-markdown';
import { collapseWhitespace } from './require-text';

type Token = MarkdownIt.Token;

// Raw HTML is parsed so that an embedded <table> or <ul> keeps its structure (see `htmlBlocks`).
const markdownParser = new MarkdownIt({ html: true, linkify: false, typographer: false });

/** The visible text of an inline token: markup dropped, line breaks kept, images by their alt text. */
function inlineText(token: Token | undefined): string {
  return (token?.children ?? [])
    .map((child) => {
      switch (child.type) {
        case 'text':
        case 'text_special':
        case 'code_inline':
        case 'image':
          return child.content;
        case 'softbreak':
        case 'hardbreak':
          return '\n';
        default:
          return '';
      }
    })
    .join('')
    .replace(/[ \t]+\n/g, '\n')
    .trim();
}

function htmlBlocks(html: string): Block[] {
  return markdownToBlocks(htmlToMarkdown(html).markdown);
}

function markdownToBlocks(markdown: string): Block[] {
  const tokens = markdownParser.parse(markdown, {});
  const blocks: Block[] = [];
  /** For each open list item, the block its first paragraph became; later paragraphs join it. */
  const openItems: (number | undefined)[] = [];
  let tableRows: string[][] | undefined;
  let row: string[] | undefined;

  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index]!;
    switch (token.type) {
      case 'heading_open': {
        const text = inlineText(tokens[index + 1]);
        if (text) blocks.push({ kind: 'heading', level: Number(token.tag.slice(1)), text: collapseWhitespace(text) });
        index++;
        break;
      }
      case 'list_item_open':
        openItems.push(undefined);
        break;
      case 'list_item_close':
        openItems.pop();
        break;
      case 'table_open':
        tableRows = [];
        break;
      case 'tr_open':
        row = [];
        break;
      case 'tr_close':
        if (row) tableRows?.push(row);
        row = undefined;
        break;
      case 'table_close':
        if (tableRows?.length) blocks.push({ kind: 'table', rows: tableRows });
        tableRows = undefined;
        break;
      case 'fence':
      case 'code_block': {
        const code = token.content.replace(/\n+$/, '');
        if (code.trim()) blocks.push({ kind: 'code', text: code });
        break;
      }
      case 'html_block':
        blocks.push(...htmlBlocks(token.content));
        break;
      case 'inline': {
        const text = inlineText(token);
        if (row) row.push(collapseWhitespace(text));
        else if (text) pushParagraph(blocks, openItems, text);
        break;
      }
    }
  }
  return blocks;
}

function pushParagraph(blocks: Block[], openItems: (number | undefined)[], text: string): void {
  if (openItems.length === 0) {
    blocks.push({ kind: 'paragraph', text });
    return;
  }
  const current = openItems.length - 1;
  const itemBlock = openItems[current];
  const last = blocks[blocks.length - 1];
  // A loose list item's second paragraph belongs to the item, unless a nested list came between.
  if (itemBlock === blocks.length - 1 && last?.kind === 'list-item') {
    last.text += `\n${text}`;
    return;
  }
  blocks.push({ kind: 'list-item', text });
  openItems[current] = blocks.length - 1;
}

const FRONT_MATTER = /^---[ \t]*\n([\s\S]*?)\n(?:---|\.\.\.)[ \t]*(?:\n|$)/;

/** YAML front matter is metadata, not content; its `title:` is the document's title. */
function splitFrontMatter(markdown: string): { body: string; title?: string } {
  const match = FRONT_MATTER.exec(markdown);
  if (!match) return { body: markdown };
  const titleLine = /^title:[ \t]*(.+)$/m.exec(match[1] ?? '');
  const title = titleLine?.[1]?.trim().replace(/^(["'])(.*)\1$/, '$2');
  const body = markdown.slice(match[0].length);
  return title ? { body, title } : { body };
}

function firstTopHeading(blocks: Block[]): string | undefined {
  const heading = blocks.find((block) => block.kind === 'heading' && block.level === 1);
  return heading?.kind === 'heading' ? heading.text : undefined;
}

/** Markdown source to a document; the HTML and DOCX extractors come through here too. */
export function markdownToDocument(markdown: string, knownTitle?: string): ExtractedDocument {
  const blocks = markdownToBlocks(normaliseLineEnds(markdown));
  const title = knownTitle ?? firstTopHeading(blocks);
  return title ? { title, blocks } : { blocks };
}

export function extractMarkdown(bytes: Buffer): ExtractedDocument {
  const { body, title } = splitFrontMatter(normaliseLineEnds(decodeText(bytes)));
  return markdownToDocument(body, title);
}
