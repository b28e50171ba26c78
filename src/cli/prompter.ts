import type { Io } from './context.js';

export interface Choice<T> {
  name: string;
  value: T;
  description?: string;
}

/** The questions interactive commands ask; tests script it, the terminal uses @inquirer/prompts. */
export interface Prompter {
  input(
    message: string,
    options?: { default?: string; validate?: (v: string) => true | string },
  ): Promise<string>;
  select<T>(message: string, choices: Choice<T>[]): Promise<T>;
  search<T>(message: string, source: (term: string) => Choice<T>[]): Promise<T>;
  confirm(message: string, defaultValue?: boolean): Promise<boolean>;
}

/** A Prompter on the terminal; Ctrl-C raises an error named ExitPromptError. */
export function inquirerPrompter(io: Io): Prompter {
  const ctx = { input: io.stdin, output: io.stderr } as never;
  const load = () => import('@inquirer/prompts');
  return {
    async input(message, options = {}) {
      const { input } = await load();
      return input(
        {
          message,
          ...(options.default !== undefined ? { default: options.default } : {}),
          ...(options.validate ? { validate: options.validate } : {}),
        },
        ctx,
      );
    },
    async select(message, choices) {
      const { select } = await load();
      return select({ message, choices, pageSize: 12 }, ctx);
    },
    async search(message, source) {
      const { search } = await load();
      return search({ message, source: async (term) => source(term ?? ''), pageSize: 12 }, ctx);
    },
    async confirm(message, defaultValue = true) {
      const { confirm } = await load();
      return confirm({ message, default: defaultValue }, ctx);
    },
  };
}
