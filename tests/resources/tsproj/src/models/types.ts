export type UserId = string;

export interface Identified {
  id: UserId;
}

/** Something that can be written out. */
export interface Serializable extends Identified {
  toJSON(): Record<string, unknown>;
}

export enum Role {
  Admin = 'admin',
  Guest = 'guest',
}
