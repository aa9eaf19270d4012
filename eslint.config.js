// ESLint flat config. The block marked PURE is the architectural fence: code in those folders decides, it
// never does I/O, reads the clock, or touches the environment (see docs/adr/0004-test-strategy.md). The block
// marked BOUNDARIES keeps the parts apart: a service never imports another service (only services/common and
// protocol/), and production code never imports tools/ or test/. test/lint-*.test.ts show each rule failing.
import js from "@eslint/js";
import { builtinModules } from "node:module";
import globals from "globals";
import tseslint from "typescript-eslint";
import boundaries from "./tools/lint/boundaries.js";

/** Folders whose code must stay pure: plain data in, plain data out. */
export const PURE_FOLDERS = [
  "protocol/src/**/*.ts",
  "services/actor/src/planner/**/*.ts",
  "services/*/src/domain/**/*.ts",
];

/** Production source: what the services and the contract ship. Tests beside it are not production. */
export const PRODUCTION_SOURCE = ["services/*/src/**/*.ts", "protocol/src/**/*.ts"];

/**
 * Imports that cross a boundary and are known, each with the reason it stays for now:
 * `{ file, target, reason }`, both repository paths. Empty: every crossing found has been fixed.
 */
export const BOUNDARY_ALLOW_LIST = [];

const nodeBuiltins = builtinModules.filter((name) => !name.startsWith("_"));

/** Module specifiers that perform I/O or bind to a runtime; forbidden in pure folders. */
export const IO_MODULE_PATTERNS = [
  { group: ["node:*"], message: "Pure folders may not import Node built-ins; do I/O in an adapter." },
  { group: ["@nats-io/*", "nats", "nats/*"], message: "Pure folders may not import a NATS client." },
  {
    group: ["@kubernetes/client-node", "@kubernetes/client-node/*"],
    message: "Pure folders may not import the Kubernetes client.",
  },
  {
    group: ["@opentelemetry/sdk-*", "@opentelemetry/exporter-*", "@opentelemetry/instrumentation*"],
    message: "Pure folders may use @opentelemetry/api (and core propagators) only, never the SDK.",
  },
  {
    group: ["pino", "pino-*", "prom-client", "undici", "ws", "commander", "express", "axios", "node-fetch"],
    message: "Pure folders may not import logging, metrics, HTTP or CLI libraries.",
  },
];

export default tseslint.config(
  {
    ignores: ["node_modules/**", ".stsfleet/**", ".bench/**", ".tmp/**", "coverage/**", "**/*.d.ts"],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/switch-exhaustiveness-check": "error",
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true, allowBoolean: true }],
      "no-restricted-syntax": [
        "error",
        { selector: "TSEnumDeclaration", message: "Use a union of literals or an `as const` object instead of enum." },
      ],
    },
  },
  {
    files: ["**/*.js", "**/*.mjs"],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ["**/*.test.ts", "test/**/*.ts"],
    rules: {
      // node:test's describe/it return promises that the runner awaits.
      "@typescript-eslint/no-floating-promises": "off",
    },
  },
  {
    // BOUNDARIES
    files: ["services/*/src/**/*.ts"],
    plugins: { stsfleet: boundaries },
    rules: {
      "stsfleet/no-cross-service-import": ["error", { root: import.meta.dirname, allow: BOUNDARY_ALLOW_LIST }],
    },
  },
  {
    files: PRODUCTION_SOURCE,
    ignores: ["**/*.test.ts"],
    plugins: { stsfleet: boundaries },
    rules: {
      "stsfleet/no-test-or-tools-import": ["error", { root: import.meta.dirname, allow: BOUNDARY_ALLOW_LIST }],
    },
  },
  {
    // PURE
    files: PURE_FOLDERS,
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: nodeBuiltins.map((name) => ({
            name,
            message: "Pure folders may not import Node built-ins; do I/O in an adapter.",
          })),
          patterns: IO_MODULE_PATTERNS,
        },
      ],
      "no-restricted-globals": [
        "error",
        { name: "process", message: "Pure code takes configuration as arguments." },
        { name: "fetch", message: "Pure code does no I/O." },
        { name: "setTimeout", message: "Pure code returns requeueAfterMs instead of scheduling." },
        { name: "setInterval", message: "Pure code does not schedule." },
        { name: "require", message: "ESM only." },
      ],
      "no-restricted-syntax": [
        "error",
        { selector: "TSEnumDeclaration", message: "Use a union of literals or an `as const` object instead of enum." },
        { selector: "ImportExpression", message: "Pure code does not load modules dynamically." },
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: "Pure code takes `now` as an argument.",
        },
      ],
      "no-restricted-properties": [
        "error",
        { object: "Date", property: "now", message: "Pure code takes `now` as an argument." },
        { object: "Math", property: "random", message: "Pure code is deterministic; pass randomness in." },
        { object: "performance", property: "now", message: "Pure code takes `now` as an argument." },
      ],
    },
  },
);
