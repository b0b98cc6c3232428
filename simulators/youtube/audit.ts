/**
 * The Google Cloud project behind the simulator's OAuth app, audited or not (issue 26, defect 7).
 *
 * Google: "All videos uploaded via the videos.insert endpoint from unverified API projects created
 * after 28 July 2020 will be restricted to private viewing mode. To lift this restriction, each API
 * project must undergo an audit to verify compliance with the Terms of Service."
 * (https://developers.google.com/youtube/v3/docs/videos/insert; the audit form is
 * https://support.google.com/youtube/contact/yt_api_form). The video is uploaded and processed,
 * but "locked as private" (https://support.google.com/youtube/answer/7300965): the API shows it as
 * `status.privacyStatus: "private"` whatever the upload asked for, in the insert's answer and in
 * every later `videos.list`, and a `videos.update` cannot make it public or unlisted.
 *
 * A new project is unaudited, so the simulator starts unaudited: `audited: true` (an option of
 * the simulator, or `POST /_sim/youtube/project { "audited": true }`) models an audited one. The
 * lock applies to uploads made with tokens the simulator's OAuth app issued (the project's own);
 * a token the simulator did not issue (pasted into the admin CLI, a test's own) belongs to no
 * project it knows and uploads as asked, as before.
 */
export class SimProjectAudit {
  private readonly lockedSessions = new Set<string>();

  constructor(public audited: boolean) {}

  /** Notes an upload session opened with a token of the project (`ownToken`). */
  opened(sessionId: string, ownToken: boolean) {
    if (ownToken && !this.audited) this.lockedSessions.add(sessionId);
  }

  /** Whether the video the session completes is locked to private (decided when the session opened). */
  locks(sessionId: string): boolean {
    return this.lockedSessions.has(sessionId);
  }

  reset() {
    this.lockedSessions.clear();
  }
}
