// Lint setup after electron-vite's Svelte-TS template: typescript-eslint's recommended rules for
// every TypeScript file and eslint-plugin-svelte's recommended rules (with the TypeScript parser)
// for components. Formatting is Prettier's job (`npm run format`), so no stylistic rules here.
import js from '@eslint/js'
import svelte from 'eslint-plugin-svelte'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  // electron.vite.config.ts.*.mjs: the bundled config electron-vite writes for a moment while it
  // builds, which `npm test` does beside the lint. .svelte-check: the components as TypeScript that
  // svelte-check --tsgo writes for TypeScript 7, beside the lint too.
  {
    ignores: ['out/**', 'node_modules/**', 'test/artifacts/**', 'training/**', 'docs/**', 'resources/**', 'electron.vite.config.ts.*.mjs', '.svelte-check/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...svelte.configs['flat/recommended'],
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      // `_`-prefixed parameters are deliberate placeholders (callbacks with a fixed signature).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // The engine takes onnxruntime from src/engine/onnxruntime.ts, which fixes how float16 data is
    // held before any tensor is made (onnxruntime-node's binding reads a Float16Array as 0 bytes);
    // a module importing onnxruntime-node itself could make the first tensor without it. The
    // benchmarks run the engine's code and time its fp16 folders, so they are held to it too.
    files: ['src/**/*.ts', 'bench/**/*.ts'],
    ignores: ['src/engine/onnxruntime.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { paths: [{ name: 'onnxruntime-node', message: 'Import onnxruntime from src/engine/onnxruntime.ts.', allowTypeImports: true }] },
      ],
    },
  },
  {
    // A test's synchronous commands run from a small helper process, not a fork of the test worker
    // (test/spawn-sync/index.ts says why).
    files: ['test/**/*.ts'],
    ignores: ['test/spawn-sync/**', 'test/unit/spawn-sync/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: ['node:child_process', 'child_process'].map((name) => ({
            name,
            importNames: ['spawnSync', 'execFileSync', 'execSync'],
            message: 'Import it from test/spawn-sync.',
          })),
        },
      ],
    },
  },
  {
    // Step-through's headings are formulas with <sub>/<sup>, from constants in the code (never from
    // a model file or the user), so {@html} cannot carry anything foreign there.
    files: ['src/renderer/src/views/StepView.svelte'],
    rules: { 'svelte/no-at-html-tags': 'off' },
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: { parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.svelte'] } },
  },
)
