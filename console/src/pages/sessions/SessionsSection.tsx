/** The Sessions section (its own routes under /sessions/*). Not built yet: shows what it will hold. */
import { sectionAt } from '../../nav';
import { Coming } from '../Coming';

export function SessionsSection() {
  return <Coming section={sectionAt('/sessions')} />;
}
