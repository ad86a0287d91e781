// The lint gate (`npm run lint`, part of `npm run check` and CI): type-aware rules for what tsc lets
// through and that bit us or would: promises nobody awaits or whose rejection nobody sees, promises
// passed where a void callback is expected, `any`, and type-only imports written as value imports.
// Formatting is prettier's job, unused locals are tsc's (noUnusedLocals), unused exports knip's.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bench/*/results/**', '.state/**'] },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // node:test's `describe`/`it` return promises the runner itself awaits: known safe.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite', 'before', 'after'] },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      // The tree's style (verbatimModuleSyntax): `import { x, type T }`, `import type` when all are types.
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { prefer: 'type-imports', fixStyle: 'inline-type-imports', disallowTypeAnnotations: true },
      ],
    },
  },
);
