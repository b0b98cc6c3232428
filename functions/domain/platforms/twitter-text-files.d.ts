/** twitter-text's own files that Herald imports instead of its index (@types/twitter-text covers only the index). */
declare module 'twitter-text/dist/parseTweet.js' {
  import type { parseTweet as ParseTweet } from 'twitter-text';

  const parseTweet: typeof ParseTweet;
  export default parseTweet;
}

declare module 'twitter-text/dist/extractUrlsWithIndices.js' {
  import type { extractUrlsWithIndices as ExtractUrlsWithIndices } from 'twitter-text';

  const extractUrlsWithIndices: typeof ExtractUrlsWithIndices;
  export default extractUrlsWithIndices;
}

declare module 'twitter-text/dist/regexp/validGTLD.js' {
  const validGTLD: RegExp;
  export default validGTLD;
}

declare module 'twitter-text/dist/regexp/validCCTLD.js' {
  const validCCTLD: RegExp;
  export default validCCTLD;
}
