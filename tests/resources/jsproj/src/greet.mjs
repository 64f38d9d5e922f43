import { clamp } from '../lib/util.js';

export const DEFAULT_NAME = 'world';

/**
 * Say hello.
 */
export default function greet(name = DEFAULT_NAME) {
  return `hello ${name}`;
}

export function shout(name, times) {
  return greet(name).toUpperCase().repeat(clamp(times, 1, 3));
}
