/** The Costs section (its own routes under /costs/*). Not built yet: shows what it will hold. */
import { sectionAt } from '../../nav';
import { Coming } from '../Coming';

export function CostsSection() {
  return <Coming section={sectionAt('/costs')} />;
}
