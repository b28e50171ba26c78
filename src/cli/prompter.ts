import { errors } from '../domain/errors.js';
import type { Io } from './context.js';

export interface Choice<T> {
  name: string;
  value: T;
  description?: string;
  /** Shown but not selectable, with the reason (an inactive account). */
  disabled?: string;
}

/**
 * The questions interactive commands ask; tests script it, the terminal uses @inquirer/prompts.
 * Cancelling (Ctrl-C) raises the `cancelled` error (exit 130), whichever prompt is showing.
 */
export interface Prompter {
  input(
    message: string,
    options?: { default?: string; validate?: (v: string) => true | string },
  ): Promise<string>;
  select<T>(message: string, choices: Choice<T>[], options?: { default?: T }): Promise<T>;
  search<T>(message: string, source: (term: string) => Choice<T>[]): Promise<T>;
  confirm(message: string, defaultValue?: boolean): Promise<boolean>;
}

/** A Prompter on the terminal. */
export function inquirerPrompter(io: Io): Prompter {
  const ctx = { input: io.stdin, output: io.stderr } as never;
  const load = () => import('@inquirer/prompts');
  /** Inquirer's own cancellation errors, by name: the one place that knows them. */
  const asked = async <T>(q: Promise<T>): Promise<T> => {
    try {
      return await q;
    } catch (e) {
      const name = (e as { name?: string })?.name;
      if (name === 'ExitPromptError' || name === 'AbortPromptError') throw errors.cancelled();
      throw e;
    }
  };
  return {
    async input(message, options = {}) {
      const { input } = await load();
      const config = {
        message,
        ...(options.default !== undefined ? { default: options.default } : {}),
        ...(options.validate ? { validate: options.validate } : {}),
      };
      return asked(input(config, ctx));
    },
    async select(message, choices, options = {}) {
      const { select } = await load();
      const config = {
        message,
        choices,
        pageSize: 12,
        ...(options.default !== undefined ? { default: options.default } : {}),
      };
      return asked(select(config, ctx));
    },
    async search(message, source) {
      const { search } = await load();
      // Typed ahead (a paste, or keys faster than the list is drawn), Enter can take the choice the
      // list showed before the last keys: a choice that is not among what the typed text finds is
      // not taken, and the question is asked again.
      for (let again = false; ; again = true) {
        let typed = '';
        const value = await asked(
          search(
            {
              message: again ? `${message} (the list had not caught up; choose again)` : message,
              source: async (term) => source((typed = term ?? '')),
              pageSize: 12,
            },
            ctx,
          ),
        );
        if (source(typed).some((c) => c.value === value && !c.disabled)) return value;
      }
    },
    async confirm(message, defaultValue = true) {
      const { confirm } = await load();
      return asked(confirm({ message, default: defaultValue }, ctx));
    },
  };
}
