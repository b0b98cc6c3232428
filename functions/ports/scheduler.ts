/** One-time schedules that put a message on a queue at a given time (EventBridge Scheduler on AWS). */
export interface Scheduler {
  /** Creates or moves the schedule named `name` so that `payload` reaches the target queue at `at`. */
  scheduleOnce(name: string, at: Date, payload: Record<string, unknown>): Promise<void>;
  /** Removes the schedule; removing one that does not exist is not an error. */
  cancel(name: string): Promise<void>;
}
