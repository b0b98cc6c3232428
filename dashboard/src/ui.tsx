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

/**
 * A wide table's box: it scrolls sideways on a phone instead of the page, and is focusable with a
 * name so a keyboard user can scroll it too.
 */
export const Scroll = ({ label, children }: { label: string; children: ComponentChildren }) => (
  // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (WCAG 2.1.1).
  <section class="scroll" aria-label={label} tabIndex={0}>
    {children}
  </section>
);
