import {
  AdminCreateUserCommand,
  type AdminCreateUserCommandOutput,
  AdminSetUserPasswordCommand,
  type CognitoIdentityProviderClient,
  UsernameExistsException,
} from '@aws-sdk/client-cognito-identity-provider';
import { ApiError } from '../../domain/errors.ts';
import type { UserDirectory } from '../../ports/user-directory.ts';

/** The UserDirectory port over a Cognito user pool (or the local emulator's, by `endpoint`). */
export const cognitoUserDirectory = (
  client: CognitoIdentityProviderClient,
  userPoolId: string,
): UserDirectory => ({
  createPerson: async ({ email, password, permanent }) => {
    let created: AdminCreateUserCommandOutput;
    try {
      created = await client.send(
        new AdminCreateUserCommand({
          UserPoolId: userPoolId,
          Username: email,
          TemporaryPassword: password,
          // The operator hands the password over; Cognito sends no invitation email.
          MessageAction: 'SUPPRESS',
          UserAttributes: [
            { Name: 'email', Value: email },
            { Name: 'email_verified', Value: 'true' },
          ],
        }),
      );
    } catch (error) {
      if (error instanceof UsernameExistsException || (error as Error).name === 'UsernameExistsException') {
        throw new ApiError('already_exists', 'A user with this email already exists.', 'email');
      }
      throw error;
    }
    const userId = created.User?.Attributes?.find((attribute) => attribute.Name === 'sub')?.Value;
    if (!userId) throw new Error(`The user pool answered AdminCreateUser for ${email} without a sub`);
    if (permanent) {
      await client.send(
        new AdminSetUserPasswordCommand({
          UserPoolId: userPoolId,
          Username: email,
          Password: password,
          Permanent: true,
        }),
      );
    }
    return { userId };
  },
});
