/** The console's routes under /console: sign-in until there is a session, then the shell and its pages. */
import { BrowserRouter, Route, Routes } from 'react-router';
import { AuthProvider, useAuth } from './auth/session';
import { SignIn } from './auth/SignIn';
import { AppShell } from './components/AppShell';
import { ToastProvider } from './components/Toast';
import { SECTIONS } from './nav';
import { NotFound } from './pages/NotFound';
import { PAGES } from './pages';

function Signed() {
  const { session } = useAuth();
  // Whatever the address, no session means the sign-in page; the address stays, so a deep link opens after it.
  if (!session) return <SignIn />;
  return (
    <Routes>
      <Route element={<AppShell />}>
        {SECTIONS.map((section) => {
          const Page = PAGES[section.path];
          const element = Page ? <Page /> : <NotFound />;
          return section.path === '/' ? (
            <Route key="index" index element={element} />
          ) : (
            <Route key={section.path} path={`${section.path}/*`} element={element} />
          );
        })}
        <Route path="*" element={<NotFound />} />
      </Route>
    </Routes>
  );
}

export function App() {
  return (
    <BrowserRouter basename="/console">
      <ToastProvider>
        <AuthProvider>
          <Signed />
        </AuthProvider>
      </ToastProvider>
    </BrowserRouter>
  );
}
