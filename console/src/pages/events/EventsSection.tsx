/** The Events section (its own routes under /events/*). Not built yet: shows what it will hold. */
import { sectionAt } from '../../nav';
import { Coming } from '../Coming';

export function EventsSection() {
  return <Coming section={sectionAt('/events')} />;
}
