import React from 'react';
import { User, BaseEntity } from '../models';
import { registry } from '../services/registry';
import { truncate } from '../util/format';

export interface UserCardProps {
  user: User;
}

export const UserCard: React.FC<UserCardProps> = ({ user }) => {
  const admin = registry.isAdmin(user);
  return <div className={admin ? 'admin' : ''}>{truncate(user.name)}</div>;
};

export function isEntity(value: unknown): value is BaseEntity {
  return value instanceof BaseEntity;
}
