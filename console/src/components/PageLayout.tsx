/** Every page: its title (focused on arrival, for screen readers), what it is for, its actions, its content. */
import { type ReactNode, useEffect, useRef } from 'react';

interface PageLayoutProps {
  title: string;
  description?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
}

export function PageLayout({ title, description, actions, children }: PageLayoutProps) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Combo console`;
    heading.current?.focus({ preventScroll: true });
  }, [title]);
  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1 ref={heading} tabIndex={-1}>
            {title}
          </h1>
          {description && <p className="page-description">{description}</p>}
        </div>
        {actions && <div className="page-actions">{actions}</div>}
      </header>
      {children}
    </div>
  );
}

/** A titled block of a page. */
export function Section({ title, actions, children, id }: { title: string; actions?: ReactNode; children: ReactNode; id?: string }) {
  const headingId = `${id ?? title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-heading`;
  return (
    <section className="section" aria-labelledby={headingId}>
      <div className="section-header">
        <h2 id={headingId}>{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  );
}
