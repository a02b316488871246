/** The signed-in frame: skip link, header (who is signed in, sign-out), the sections' navigation and the page. */
import { Suspense } from 'react';
import { NavLink, Outlet } from 'react-router';
import { isAdmin, useAuth, useSession } from '../auth/session';
import { SECTIONS } from '../nav';

export function AppShell() {
  const session = useSession();
  const { signOut } = useAuth();
  const operate = SECTIONS.filter((s) => s.group === 'operate');
  const settings = SECTIONS.filter((s) => s.group === 'settings');
  const link = (section: (typeof SECTIONS)[number]) => (
    <li key={section.path}>
      <NavLink to={section.path} end={section.path === '/'} className={({ isActive }) => (isActive ? 'nav-link active' : 'nav-link')}>
        <span>{section.label}</span>
      </NavLink>
    </li>
  );
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Combo console</span>
        <div className="whoami">
          <span>
            <span className="muted">Tenant</span> <strong>{session.tenantId}</strong>
          </span>
          <span>
            <span className="muted">User</span> <strong data-testid="user-id">{session.userId}</strong>
          </span>
          <span className={isAdmin(session) ? 'badge badge-info' : 'badge badge-neutral'}>{isAdmin(session) ? 'admin' : 'member'}</span>
          <button type="button" className="button button-small" onClick={() => signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <nav className="sidebar" aria-label="Sections">
        <ul>{operate.map(link)}</ul>
        <p className="nav-group" id="nav-settings">
          Personal settings
        </p>
        <ul aria-labelledby="nav-settings">{settings.map(link)}</ul>
        <p className="nav-foot">
          <a href="/v1/docs">API reference</a>
        </p>
      </nav>
      <main id="main" className="content">
        <Suspense fallback={<p className="muted loading">Loading the page…</p>}>
          <Outlet />
        </Suspense>
      </main>
    </div>
  );
}
