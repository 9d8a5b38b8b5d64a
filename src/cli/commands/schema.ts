// `tradebot schema`: the JSON Schema of deployment files, for editor completion.
import type { Command } from 'commander';
import { configJsonSchema } from '../../config/index.js';

export function register(program: Command): void {
  program
    .command('schema')
    .description('Print the JSON Schema of deployment files (for editor completion)')
    .action(() => {
      process.stdout.write(`${JSON.stringify(configJsonSchema(), null, 2)}\n`);
    });
}
