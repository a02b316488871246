/** The Agents section (its own routes under /agents/*). Not built yet: shows what it will hold. */
import { sectionAt } from '../../nav';
import { Coming } from '../Coming';

export function AgentsSection() {
  return <Coming section={sectionAt('/agents')} />;
}
