/**
 * The Knowledge section (its own routes under /knowledge/*): the knowledge bases, one knowledge
 * base with its uploads and documents, a document's chunks, and the search playground. The upload
 * queue belongs to the section, so it goes on while its pages change.
 */
import { Route, Routes } from 'react-router';
import { NotFound } from '../NotFound';
import { ChunkViewer } from './ChunkViewer';
import { KnowledgeBasePage } from './KnowledgeBasePage';
import { EditKnowledgeBase, NewKnowledgeBase } from './KnowledgeBaseForm';
import { KnowledgeBases } from './KnowledgeBases';
import { SearchPlayground } from './SearchPlayground';
import { UploadQueueProvider } from './UploadQueue';
import './knowledge.css';

export function KnowledgeSection() {
  return (
    <UploadQueueProvider>
      <Routes>
        <Route index element={<KnowledgeBases />} />
        <Route path="new" element={<NewKnowledgeBase />} />
        <Route path="search" element={<SearchPlayground />} />
        <Route path="documents/:docId" element={<ChunkViewer />} />
        <Route path=":kbId" element={<KnowledgeBasePage />} />
        <Route path=":kbId/edit" element={<EditKnowledgeBase />} />
        <Route path=":kbId/documents/:docId" element={<ChunkViewer />} />
        <Route path="*" element={<NotFound />} />
      </Routes>
    </UploadQueueProvider>
  );
}
