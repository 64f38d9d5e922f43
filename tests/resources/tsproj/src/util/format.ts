export const MAX_WIDTH = 40;

export function normalize(text: string): string {
  return text.trim().toLowerCase();
}

export function truncate(text: string, width = MAX_WIDTH): string {
  return normalize(text).slice(0, width);
}

export interface Named {
  name: string;
}

export function byName<Item extends Named>(items: Item[]): Map<string, Item> {
  return new Map(items.map((item): [string, Item] => [item.name, item]));
}
