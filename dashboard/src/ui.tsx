import type { ComponentChildren } from 'preact';

/** An error the user should read: announced by screen readers as it appears. */
export const ErrorNote = ({ message }: { message: string | undefined }) =>
  message ? (
    <p class="error" role="alert">
      {message}
    </p>
  ) : null;

export const Loading = ({ what }: { what: string }) => (
  <p class="muted" aria-live="polite">
    Loading {what}…
  </p>
);

/** A status word with its colour class (`badge-published`, `badge-failed`, ...). */
export const Badge = ({ status }: { status: string }) => (
  <span class={`badge badge-${status}`}>{status.replace(/_/g, ' ')}</span>
);

export const Section = ({ title, children }: { title: string; children: ComponentChildren }) => (
  <section aria-label={title}>
    <h2>{title}</h2>
    {children}
  </section>
);
