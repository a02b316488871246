/** The Skills section (its own routes under /skills/*). Not built yet: shows what it will hold. */
import { sectionAt } from '../../nav';
import { Coming } from '../Coming';

export function SkillsSection() {
  return <Coming section={sectionAt('/skills')} />;
}
