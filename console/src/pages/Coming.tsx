/** A section whose page is not built yet: what it will hold, and what to use until then. */
import { EmptyState } from '../components/EmptyState';
import { PageLayout } from '../components/PageLayout';
import type { NavSection } from '../nav';

export function Coming({ section }: { section: NavSection }) {
  return (
    <PageLayout title={section.label} description={section.summary}>
      <EmptyState title="Coming in a next version of the console">
        <p>Until then, the API does all of it. Try it in the API reference, or with the official clients:</p>
        <ul className="endpoint-list">
          {section.endpoints.map((endpoint) => (
            <li key={endpoint}>
              <code>{endpoint}</code>
            </li>
          ))}
        </ul>
        <p>
          <a href="/v1/docs">Open the API reference</a>
        </p>
      </EmptyState>
    </PageLayout>
  );
}

export function NotFound() {
  return (
    <PageLayout title="Page not found">
      <EmptyState title="There is no console page at this address">
        <p>Pick a section in the navigation.</p>
      </EmptyState>
    </PageLayout>
  );
}
