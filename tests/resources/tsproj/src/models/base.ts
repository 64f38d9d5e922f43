import type { Identified, UserId } from './types';

export abstract class Entity implements Identified {
  constructor(public id: UserId) {}

  save(): boolean {
    return this.validate() && persist(this);
  }

  abstract validate(): boolean;
}

export function persist(entity: Entity): boolean {
  return entity.id.length > 0;
}
