import type { SimErrorBodies, SimResponse } from '../framework/framework.ts';

export const VISIBILITIES = ['PUBLIC', 'CONNECTIONS', 'LOGGED_IN'];

export const linkedInError = (
  status: number,
  code: string,
  message: string,
  serviceErrorCode = 100,
  headers?: SimResponse['headers'],
): SimResponse => ({
  status,
  body: { status, serviceErrorCode, code, message },
  ...(headers ? { headers } : {}),
});

export const linkedInErrors: SimErrorBodies = {
  unauthorized: (reason) =>
    reason === 'missing'
      ? linkedInError(401, 'EMPTY_ACCESS_TOKEN', 'Empty oauth2_access_token', 401)
      : reason === 'expired'
        ? linkedInError(401, 'EXPIRED_ACCESS_TOKEN', 'The token used in the request has expired', 65601)
        : linkedInError(
            401,
            'REVOKED_ACCESS_TOKEN',
            'The token used in the request has been revoked by the user',
            65602,
          ),
  refused: () =>
    linkedInError(422, 'UNPROCESSABLE_ENTITY', 'ERROR :: /commentary :: content was rejected (sim:fail)'),
  unavailable: () => linkedInError(503, 'SERVICE_UNAVAILABLE', 'Service Unavailable', 0),
  // LinkedIn's limits are daily (reset at midnight UTC) and its 429 carries no Retry-After.
  // LinkedIn answers a short throttle and a spent daily limit alike: a bare 429, no Retry-After.
  rateLimited: () =>
    linkedInError(
      429,
      'TOO_MANY_REQUESTS',
      'Resource level throttle APPLICATION DAY limit for calls to this resource is reached.',
      101,
    ),
  badRequest: (message) => linkedInError(400, 'ILLEGAL_ARGUMENT', message),
  notFound: (message) => linkedInError(404, 'NOT_FOUND', message, 0),
};

/**
 * LinkedIn's refusal of a post whose content repeats one of the author's live posts: a 422 whose
 * `errorDetails.inputErrors[]` carries `DUPLICATE_POST`, naming the existing post in the message
 * (there is no top-level `code`).
 */
export const duplicatePostError = (existingUrn: string): SimResponse => ({
  status: 422,
  body: {
    errorDetailType: 'com.linkedin.common.error.BadRequest',
    message: `ERROR :: /commentary :: Content is a duplicate of ${existingUrn}`,
    errorDetails: {
      inputErrors: [
        {
          description: `Content is a duplicate of ${existingUrn}`,
          input: { inputPath: { fieldPath: '/commentary' } },
          code: 'DUPLICATE_POST',
        },
      ],
    },
    status: 422,
  },
});
