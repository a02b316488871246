// ESLint 9 flat config: @eslint/js and typescript-eslint (type-aware), eslint-config-prettier last
// so that formatting is Prettier's alone. Type information comes from tsconfig.json, which includes
// the service, test/ and bench/; the operator console (console/src) has its own browser tsconfig and
// the React hooks rules; the few plain JS files (jest config and reporters, these configs, the Vite
// config) are linted without type information.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    // Nothing in the repo is generated into it: the OpenAPI client test writes its clients under os.tmpdir().
    ignores: [
      'dist/**',
      'node_modules/**',
      '.stack/**',
      'coverage/**',
      'clients/typescript/dist/**',
      'clients/typescript/node_modules/**',
      'clients/python/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: new URL('../..', import.meta.url).pathname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          args: 'after-used',
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
        },
      ],
    },
  },
  {
    // The contract's error codes are named, never written as numbers: ErrorCodes (common/errors.ts) is the one table.
    files: ['{api,commands,workflows,activities,completion,knowledge,triggers,upstream,stores,common,workers}/**/*.ts'],
    ignores: ['common/errors.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'Literal[raw=/^(1000[1-6]|20001|3000[12])$/]',
          message: 'Use ErrorCodes (common/errors.ts) for an error code, not a number literal.',
        },
      ],
    },
  },
  {
    // The service's code: `void` does not silence a floating promise either. An unhandled rejection is a bug the API
    // and the worker only log (common/process-faults.ts), so every promise left running handles its rejection.
    files: ['{api,activities,commands,common,completion,knowledge,stores,triggers,upstream,workers,workflows}/**/*.ts'],
    rules: { '@typescript-eslint/no-floating-promises': ['error', { ignoreVoid: false }] },
  },
  {
    // Tests and benchmarks handle untyped JSON bodies and fixtures: `any`, `!` and the unsafe-* rules are relaxed there,
    // and require-await too (their stubs implement async interfaces without awaiting anything). The tests' existing
    // `eslint-disable-next-line @typescript-eslint/no-explicit-any` comments are then unused: not reported there.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    rules: {
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // The official TypeScript client (clients/typescript) is its own package: its type information comes from its
    // own tsconfig (the root one does not include it), with its dependencies (vitest, eventsource-parser) installed in
    // clients/typescript/node_modules (npm ci there).
    files: ['clients/typescript/**/*.ts'],
    languageOptions: {
      parserOptions: {
        projectService: false,
        project: ['./clients/typescript/tsconfig.json'],
        tsconfigRootDir: new URL('../..', import.meta.url).pathname,
      },
    },
  },
  {
    // The operator console (console/src) is a browser app: its type information comes from console/tsconfig.json (DOM, JSX,
    // the official client by path alias), and React's rules of hooks apply.
    files: ['console/src/**/*.ts', 'console/src/**/*.tsx'],
    ...reactHooks.configs.flat['recommended-latest'],
    languageOptions: {
      globals: { ...globals.browser },
      parserOptions: {
        projectService: false,
        project: ['./console/tsconfig.json'],
        tsconfigRootDir: new URL('../..', import.meta.url).pathname,
      },
    },
  },
  {
    // Plain JS: CommonJS for Node and Jest (jest.config.js, test/support/*.js) and ESM configs; no type information.
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: { ...globals.node } },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
