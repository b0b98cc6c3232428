import { useState } from 'preact/hooks';
import { answerChallenge, type SignInStep, signIn } from './cognito.ts';
import type { DashboardConfig } from './config.ts';
import type { Session } from './session.ts';
import { ErrorNote } from './ui.tsx';

type Challenge = Extract<SignInStep, { kind: 'new_password' | 'mfa' }>;

/** Email and password, then the challenge Cognito asks for (a new password, or a TOTP code). */
export const SignIn = ({ config, session }: { config: DashboardConfig; session: Session }) => {
  const [challenge, setChallenge] = useState<Challenge | null>(null);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const run = async (step: () => Promise<SignInStep>) => {
    setBusy(true);
    setError(undefined);
    try {
      const next = await step();
      if (next.kind === 'signed_in') session.set(next.tokens);
      else setChallenge(next);
    } catch (e) {
      setError(e instanceof Error ? e.message : 'Sign-in failed.');
    } finally {
      setBusy(false);
    }
  };

  const onSubmit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const value = (name: string) => String(form.get(name) ?? '');
    if (!challenge) void run(() => signIn(config.cognito, value('email').trim(), value('password')));
    else void run(() => answerChallenge(config.cognito, challenge, value('answer').trim()));
  };

  return (
    <main id="main" class="sign-in">
      <h1>Sign in to Herald</h1>
      <form onSubmit={onSubmit} class="card stack">
        {!challenge && (
          <>
            <label>
              Email
              <input name="email" type="email" autocomplete="username" required />
            </label>
            <label>
              Password
              <input name="password" type="password" autocomplete="current-password" required />
            </label>
          </>
        )}
        {challenge?.kind === 'new_password' && (
          <label>
            Choose a new password
            <input name="answer" type="password" autocomplete="new-password" required minLength={8} />
          </label>
        )}
        {challenge?.kind === 'mfa' && (
          <label>
            Code from your authenticator app
            <input
              name="answer"
              inputMode="numeric"
              autocomplete="one-time-code"
              pattern="[0-9]{6}"
              required
            />
          </label>
        )}
        <ErrorNote message={error} />
        <button type="submit" disabled={busy}>
          {challenge ? 'Continue' : 'Sign in'}
        </button>
        {challenge && (
          <button type="button" class="secondary" onClick={() => setChallenge(null)}>
            Start again
          </button>
        )}
      </form>
    </main>
  );
};
