import { command } from '../cli/command.js';
import { readConfig, writeConfig } from '../config/config.js';
import { errors } from '../domain/errors.js';

export default command({
  args: [{ name: 'name', description: 'profile name' }],
  examples: ['books profile remove office'],
  options: (raw) => ({ name: raw.args[0]! }),
  async run(ctx, { name }) {
    const config = readConfig(ctx.env);
    if (!(name in config.profiles)) throw errors.usage(`no profile '${name}'`);
    delete config.profiles[name];
    if (config.default === name) delete config.default;
    writeConfig(ctx.env, config);
    if (ctx.json) return ctx.outJson({ removed: name });
    ctx.out(`Removed profile ${name}.`);
  },
});
