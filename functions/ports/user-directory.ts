/** The user pool where people sign in: Amazon Cognito on AWS, its emulator locally. */
export interface UserDirectory {
  /**
   * Creates a person who signs in with `email`. With `permanent`, `password` is theirs from now on;
   * otherwise it is temporary and the first sign-in asks for a new one (NEW_PASSWORD_REQUIRED).
   * Returns the pool's `sub` for the person. `already_exists` when the email is taken.
   */
  createPerson(input: { email: string; password: string; permanent: boolean }): Promise<{ userId: string }>;
}
