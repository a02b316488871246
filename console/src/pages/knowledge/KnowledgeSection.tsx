/** The Knowledge section (its own routes under /knowledge/*). Not built yet: shows what it will hold. */
import { sectionAt } from '../../nav';
import { Coming } from '../Coming';

export function KnowledgeSection() {
  return <Coming section={sectionAt('/knowledge')} />;
}
