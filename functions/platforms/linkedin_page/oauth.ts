/** LinkedIn pages connect through the member's LinkedIn grant, then pick organizations (linkedin/oauth.ts). */
export { linkedInPageAuth } from '../linkedin/oauth.ts';
