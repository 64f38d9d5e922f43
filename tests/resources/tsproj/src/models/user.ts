import { Entity } from './base';
import { Role, Serializable } from './types';

export default class User extends Entity implements Serializable {
  role: Role = Role.Guest;

  constructor(id: string, public name: string) {
    super(id);
  }

  validate(): boolean {
    return this.name.length > 0;
  }

  promote(): User {
    this.role = Role.Admin;
    this.save();
    return this;
  }

  render(): string {
    return this.name;
  }

  toJSON() {
    return { id: this.id, name: this.name };
  }
}
