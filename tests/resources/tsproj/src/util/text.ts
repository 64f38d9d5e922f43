export function normalize(text: string): string {
  return text.normalize('NFC');
}

export class Banner {
  render(): string {
    return '***';
  }
}

/** TypeScript merges an interface and a function of one name. */
export interface Slug {
  value: string;
}

export function Slug(text: string): Slug {
  return { value: normalize(text) };
}

export const HOME: Slug = Slug('home');
