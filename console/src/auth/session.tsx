/**
 * The signed-in session: a console token (JWT) exchanged for an API key at
 * `POST /v1/auth/console-token`, kept in this tab's memory only (never in storage: a reload signs
 * out), renewed before it expires, forgotten at sign-out. A 401 from any call ends the session
 * with the API's message. The API key itself is never kept.
 */
import { AuthenticationError, type Combo } from '@combo/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { ApiContext, apiBaseURL, createClient } from '../api/client';
import { errorDetails } from '../api/errors';
import { type ConsoleToken, exchangeConsoleToken } from '../api/console-token';

export interface Session {
  token: string;
  /** Epoch milliseconds. */
  issuedAt: number;
  expiresAt: number;
  tenantId: string;
  userId: string;
  roles: string[];
  keyId: string;
}

interface AuthState {
  session: Session | null;
  /** Why the last session ended (shown on the sign-in page), or null. */
  notice: string | null;
  signIn: (apiKey: string) => Promise<void>;
  signOut: (notice?: string) => void;
}

const AuthContext = createContext<AuthState | null>(null);

export function useAuth(): AuthState {
  const auth = useContext(AuthContext);
  if (!auth) throw new Error('useAuth outside AuthProvider');
  return auth;
}

/** The signed-in session (only inside the signed-in shell). */
export function useSession(): Session {
  const { session } = useAuth();
  if (!session) throw new Error('useSession without a session');
  return session;
}

export const isAdmin = (session: Session): boolean => session.roles.includes('admin');

function toSession(reply: ConsoleToken, now = Date.now()): Session {
  const expiresAt = Date.parse(reply.expires_at);
  return {
    token: reply.token,
    issuedAt: now,
    // The server's clock may differ from ours: trust the lifetime it gives, bounded by its expiry.
    expiresAt: Math.min(now + reply.expires_in * 1000, Number.isFinite(expiresAt) ? expiresAt + 60_000 : Infinity),
    tenantId: reply.tenant_id,
    userId: reply.user_id,
    roles: reply.roles,
    keyId: reply.key_id,
  };
}

/** When to renew: three quarters into the token's life, and at least 30 s before it ends. */
function renewalDelay(session: Session, now = Date.now()): number {
  const lifetime = session.expiresAt - session.issuedAt;
  const at = Math.min(session.issuedAt + lifetime * 0.75, session.expiresAt - 30_000);
  return Math.max(at - now, 1_000);
}

const RETRY_RENEWAL_MS = 15_000;

export function AuthProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [queryClient] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          queries: {
            staleTime: 10_000,
            // The API's own answers (4xx) are final; a dropped connection is tried once more.
            retry: (failures, error) => failures < 1 && errorDetails(error).code === undefined,
          },
        },
      }),
  );

  const signOut = useCallback(
    (message?: string) => {
      setSession(null);
      queryClient.clear();
      setNotice(message ?? 'You signed out.');
    },
    [queryClient],
  );

  // A 401 from any call (the token expired, its key was revoked) ends the session with the API's message.
  useEffect(() => {
    const onError = (error: unknown) => {
      if (error instanceof AuthenticationError) signOut(`Signed out: ${error.message}`);
    };
    const stopQueries = queryClient.getQueryCache().subscribe((event) => {
      if (event.type === 'updated' && event.action.type === 'error') onError(event.action.error);
    });
    const stopMutations = queryClient.getMutationCache().subscribe((event) => {
      if (event.type === 'updated' && event.action.type === 'error') onError(event.action.error);
    });
    return () => {
      stopQueries();
      stopMutations();
    };
  }, [queryClient, signOut]);

  const signIn = useCallback(async (apiKey: string) => {
    const reply = await exchangeConsoleToken(apiBaseURL(), apiKey.trim());
    setNotice(null);
    setSession(toSession(reply));
  }, []);

  // Renewal: the same exchange with the current token, before it expires.
  useEffect(() => {
    if (!session) return;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout>;
    const renew = async () => {
      if (Date.now() >= session.expiresAt) return signOut('Your session expired: sign in again.');
      try {
        const reply = await exchangeConsoleToken(apiBaseURL(), session.token, controller.signal);
        setSession(toSession(reply));
      } catch (error) {
        if (controller.signal.aborted) return;
        if (error instanceof AuthenticationError) return signOut(`Signed out: ${error.message}`);
        // Not reachable for now: try again while the token still lives.
        timer = setTimeout(() => void renew(), Math.min(RETRY_RENEWAL_MS, Math.max(session.expiresAt - Date.now(), 0)));
      }
    };
    timer = setTimeout(() => void renew(), renewalDelay(session));
    // A tab in the background may have its timers held back: look again when it is shown.
    const onVisible = () => {
      if (document.visibilityState === 'visible' && Date.now() >= session.expiresAt - 30_000) {
        clearTimeout(timer);
        void renew();
      }
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      controller.abort();
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [session, signOut]);

  const client: Combo | null = useMemo(() => (session ? createClient(session.token) : null), [session]);
  const auth = useMemo(() => ({ session, notice, signIn, signOut }), [session, notice, signIn, signOut]);

  return (
    <AuthContext.Provider value={auth}>
      <QueryClientProvider client={queryClient}>
        <ApiContext.Provider value={client}>{children}</ApiContext.Provider>
      </QueryClientProvider>
    </AuthContext.Provider>
  );
}
