import type { Clock } from '../../../functions/ports/clock.ts';

/** A clock that stands still until a test moves it. */
export class FakeClock implements Clock {
  private at: number;

  constructor(start: string | Date = '2026-06-01T12:00:00.000Z') {
    this.at = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.at);
  }

  set(to: string | Date): void {
    this.at = new Date(to).getTime();
  }

  advance(seconds: number): void {
    this.at += seconds * 1000;
  }
}
