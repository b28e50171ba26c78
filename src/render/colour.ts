import chalk from 'chalk';

/** Bold text on a terminal; renderers are the only place that knows about colour. */
export const bold = (s: string): string => chalk.bold(s);
