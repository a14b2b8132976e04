import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['node_modules/', '.countersign/', '.venv/', 'test/histories/', 'dist/', 'demo/chat/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // Deterministic workflow code must never reach Node modules or activity code.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*', 'fs', 'path', 'crypto', 'http', 'child_process'],
              message: 'Workflow code is deterministic: no Node modules.',
            },
            {
              group: [
                '../activities/*',
                '../content-store/*',
                '../api/*',
                '../worker/*',
                '../secrets/*',
                '../codec/*',
                'openai',
                'better-sqlite3',
              ],
              message: 'Workflow code must not import activity, API or worker code.',
            },
          ],
        },
      ],
    },
  },
);
