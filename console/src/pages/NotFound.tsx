/** An address under /console that names no page. */
import { EmptyState } from '../components/EmptyState';
import { PageLayout } from '../components/PageLayout';

export function NotFound() {
  return (
    <PageLayout title="Page not found">
      <EmptyState title="There is no console page at this address">
        <p>Pick a section in the navigation.</p>
      </EmptyState>
    </PageLayout>
  );
}
