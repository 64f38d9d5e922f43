import User from '../models/user';
import { Role, type UserId } from '../models';
import { normalize as clean } from '../util/text.js';
import * as fmt from '../util/format';
import { EventEmitter } from 'events';

function injectable(): ClassDecorator {
  return () => undefined;
}

/** Keeps users by id. */
@injectable()
export class Registry extends EventEmitter {
  private users = new Map<UserId, User>();

  add(name: string, env?: AppEnv): User {
    const user = new User(clean(name), fmt.truncate(name));
    if (env?.debug) track('add');
    this.users.set(user.id, user);
    this.emit('added', user);
    return user.promote();
  }

  isAdmin(user: User): boolean {
    return user.role === Role.Admin;
  }

  label(item: { render(): string }): string {
    return item.render();
  }
}

export const registry = new Registry();
