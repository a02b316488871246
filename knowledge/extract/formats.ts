/** The file formats the knowledge base can read, as documented in the API reference. */
export const SUPPORTED_FORMATS = [
  { format: 'text', noun: 'text file', name: 'Plain text', extensions: ['.txt', '.text', '.log'], mimeTypes: ['text/plain'] },
  {
    format: 'markdown',
    noun: 'Markdown file',
    name: 'Markdown',
    extensions: ['.md', '.markdown', '.mdown'],
    mimeTypes: ['text/markdown', 'text/x-markdown'],
  },
  {
    format: 'html',
    noun: 'HTML file',
    name: 'HTML',
    extensions: ['.html', '.htm', '.xhtml'],
    mimeTypes: ['text/html', 'application/xhtml+xml'],
  },
  { format: 'pdf', noun: 'PDF', name: 'PDF', extensions: ['.pdf'], mimeTypes: ['application/pdf'] },
  {
    format: 'docx',
    noun: 'Word document',
    name: 'Word document (Office Open XML)',
    extensions: ['.docx'],
    mimeTypes: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
  },
  {
    format: 'csv',
    noun: 'CSV file',
    name: 'CSV / TSV',
    extensions: ['.csv', '.tsv'],
    mimeTypes: ['text/csv', 'text/tab-separated-values'],
  },
  {
    format: 'xlsx',
    noun: 'Excel workbook',
    name: 'Excel workbook (Office Open XML)',
    extensions: ['.xlsx'],
    mimeTypes: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  },
  {
    format: 'json',
    noun: 'JSON file',
    name: 'JSON / JSON Lines',
    extensions: ['.json', '.jsonl', '.ndjson'],
    mimeTypes: ['application/json', 'application/x-ndjson', 'application/jsonl'],
  },
] as const;

export type Format = (typeof SUPPORTED_FORMATS)[number]['format'];

/** How messages to the uploader refer to a file of the format ("the Excel workbook cannot be read"). */
export function formatNoun(format: Format): string {
  return SUPPORTED_FORMATS.find((entry) => entry.format === format)?.noun ?? 'file';
}
