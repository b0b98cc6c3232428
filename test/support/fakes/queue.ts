import type { EventFacts, JobQueue, PublishJob } from '../../../functions/ports/publishing.ts';

/** A queue that keeps what was sent, in order. */
export class FakeJobQueue implements JobQueue {
  readonly jobs: { job: PublishJob; delaySeconds: number | undefined }[] = [];
  readonly events: { eventId: string; about: EventFacts | undefined }[] = [];
  /** When set, `sendEvent` fails (the event stays in the outbox). */
  failEvents = false;

  async sendPublish(job: PublishJob, delaySeconds?: number): Promise<void> {
    this.jobs.push({ job: structuredClone(job), delaySeconds });
  }

  async sendEvent(eventId: string, about?: EventFacts): Promise<void> {
    if (this.failEvents) throw new Error('The event queue is unavailable');
    this.events.push({ eventId, about });
  }

  /** The delays of the publish jobs sent, in order. */
  delays(): (number | undefined)[] {
    return this.jobs.map((j) => j.delaySeconds);
  }
}
