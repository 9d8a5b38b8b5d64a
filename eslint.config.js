// Lint rules: the recommended sets, type-aware checks for promises, the house rule of DESIGN.md that `any`
// never appears, and the layering of DESIGN.md: a module imports only from layers below its own.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import noImportCycle from './eslint/no-import-cycle.js';

// DESIGN.md, "Layers point downward only": each line may import from the lines below it, never from its
// own line's other folders or from above.
export const LAYERS = [
  ['cli'],
  ['daemon', 'research', 'web', 'notify'],
  ['drift'],
  ['backtest'],
  ['execution', 'config'],
  ['store', 'risk'],
  ['strategy', 'client', 'sim'],
  ['feeds', 'portfolio', 'data'],
  ['market'],
  ['api'],
];

/** For each folder of src/, the folders it must not import from (its own layer's others and all above). */
const layerRules = LAYERS.flatMap((layer, rank) =>
  layer.map((folder) => {
    const forbidden = LAYERS.slice(0, rank + 1)
      .flat()
      .filter((f) => f !== folder);
    return {
      files: [`src/${folder}/**/*.ts`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: forbidden.map((f) => ({
              group: [`**/${f}/*`, `**/${f}`],
              message: `src/${folder} is below src/${f} in DESIGN.md's layers: move the shared piece down instead of importing upward.`,
            })),
          },
        ],
      },
    };
  }),
);

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'backtest/results/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // Type-aware: a promise nobody awaits or handles is a lost error (or a lost order).
    files: ['src/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: { '@typescript-eslint/no-floating-promises': 'error' },
  },
  ...layerRules,
  {
    // No import circles, even inside a folder (DESIGN.md): eslint/no-import-cycle.js.
    files: ['src/**/*.ts'],
    plugins: { house: { rules: { 'no-import-cycle': noImportCycle } } },
    rules: { 'house/no-import-cycle': 'error' },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
