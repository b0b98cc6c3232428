/** A person who signs in to the dashboard (a Cognito user), and the one account it belongs to. */
export interface User {
  /** The user pool's `sub` for the person. */
  userId: string;
  accountId: string;
  email: string;
  role: 'owner';
  createdAt: string;
}

/** The people of each account, found by their user pool `sub`. */
export interface UserStore {
  /** Stores the user; fails if a user with the same id exists. */
  createUser(user: User): Promise<void>;
  getUser(userId: string): Promise<User | null>;
}
