export { default as User } from './user';
export * from './types';
export { Entity as BaseEntity } from './base';
