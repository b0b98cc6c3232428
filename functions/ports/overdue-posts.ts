/** A post that should be moving and may not be: what the post sweep sees of it. */
export interface OverduePost {
  postId: string;
  status: 'publishing' | 'scheduled';
  /** The version it was read at; a later write moves it in the due index by itself. */
  version: number;
  /** Its publication round (publishing posts). */
  round: number;
  scheduledAt: string | null;
  /** The name of its schedule (absent on posts saved before schedules had names of their own: the post id). */
  scheduleName?: string | null;
  /** When it became due: its last write while publishing, its scheduled time while scheduled. */
  dueAt: string;
}

/**
 * The due index of posts (a sparse index on AWS, never a Scan): publishing posts by their last
 * write, scheduled posts by their time.
 */
export interface OverduePosts {
  /** Posts due before `before`, oldest first, at most `limit`. */
  overdue(before: string, limit: number): Promise<OverduePost[]>;
  /** Moves the post's due time to `dueAt`; false when the post changed meanwhile (its own write moved it). */
  postpone(post: OverduePost, dueAt: string): Promise<boolean>;
}
