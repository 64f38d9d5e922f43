declare interface AppEnv {
  debug: boolean;
}

declare function track(event: string): void;
