/** Ids shaped like the networks' own. */

let snowflakeSequence = 0n;
let lastSnowflakeMs = 0n;

/**
 * A numeric id laid out like X's and LinkedIn's: milliseconds since `epochMs` shifted left by 22
 * bits, then a sequence number. Strictly increasing within the process.
 */
export const snowflake = (epochMs = 0): string => {
  let now = BigInt(Date.now() - epochMs);
  if (now <= lastSnowflakeMs) {
    snowflakeSequence += 1n;
    if (snowflakeSequence > 4095n) {
      lastSnowflakeMs += 1n;
      snowflakeSequence = 0n;
    }
    now = lastSnowflakeMs;
  } else {
    lastSnowflakeMs = now;
    snowflakeSequence = 0n;
  }
  return ((now << 22n) | (1n << 12n) | snowflakeSequence).toString();
};
