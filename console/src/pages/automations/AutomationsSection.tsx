/** The Automations section (its own routes under /automations/*). Not built yet: shows what it will hold. */
import { sectionAt } from '../../nav';
import { Coming } from '../Coming';

export function AutomationsSection() {
  return <Coming section={sectionAt('/automations')} />;
}
