// ESLint rules for the import boundaries between the repository's parts (wired in eslint.config.js). A specifier
// is judged by the repository path it resolves to, relative specifiers against the importing file and `#` aliases
// through package.json "imports", so `../../../actor/src/x.ts` and `#test-support/x.ts` are caught however deep
// the importer sits. Package specifiers (`zod`, `node:fs`) are never a boundary matter here.
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

const OPTIONS_SCHEMA = [
  {
    type: "object",
    properties: {
      root: { type: "string" },
      allow: {
        type: "array",
        items: {
          type: "object",
          properties: { file: { type: "string" }, target: { type: "string" }, reason: { type: "string" } },
          required: ["file", "target", "reason"],
          additionalProperties: false,
        },
      },
    },
    required: ["root"],
    additionalProperties: false,
  },
];

/** @type {Map<string, [string, string][]>} package.json "imports" of each root, as [specifier, target] pairs. */
const aliasesByRoot = new Map();

function aliasesOf(root) {
  let aliases = aliasesByRoot.get(root);
  if (!aliases) {
    const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    aliases = Object.entries(manifest.imports ?? {}).filter((entry) => typeof entry[1] === "string");
    aliasesByRoot.set(root, aliases);
  }
  return aliases;
}

const toPosix = (path) => path.split(sep).join("/");

/** The repository path `specifier` names from `filename`, or undefined for a package or a path outside `root`. */
function resolveSpecifier(specifier, filename, root) {
  let absolute;
  if (specifier.startsWith("./") || specifier.startsWith("../")) {
    absolute = resolve(dirname(filename), specifier);
  } else if (specifier.startsWith("#")) {
    for (const [key, target] of aliasesOf(root)) {
      if (key === specifier) absolute = resolve(root, target);
      else if (key.endsWith("*") && specifier.startsWith(key.slice(0, -1))) {
        absolute = resolve(root, target.replace("*", specifier.slice(key.length - 1)));
      }
      if (absolute) break;
    }
  } else if (isAbsolute(specifier)) {
    absolute = specifier;
  }
  if (absolute === undefined) return undefined;
  const path = toPosix(relative(root, absolute));
  return path.startsWith("../") ? undefined : path;
}

/**
 * A rule that calls `check(file, target)` for every static or dynamic import, re-export and type import of a
 * repository file; `check` returns the message to report, or undefined. `file` and `target` are repository paths.
 */
function boundaryRule(description, check) {
  return {
    meta: { type: "problem", docs: { description }, schema: OPTIONS_SCHEMA },
    create(context) {
      const { root, allow = [] } = context.options[0];
      const file = toPosix(relative(root, context.filename));
      const allowed = new Set(allow.filter((entry) => entry.file === file).map((entry) => entry.target));
      const visit = (sourceNode) => {
        if (!sourceNode || sourceNode.type !== "Literal" || typeof sourceNode.value !== "string") return;
        const target = resolveSpecifier(sourceNode.value, context.filename, root);
        if (target === undefined || allowed.has(target)) return;
        const message = check(file, target);
        if (message) context.report({ node: sourceNode, message });
      };
      return {
        ImportDeclaration: (node) => visit(node.source),
        ExportNamedDeclaration: (node) => visit(node.source),
        ExportAllDeclaration: (node) => visit(node.source),
        ImportExpression: (node) => visit(node.source),
        TSImportType: (node) => visit(node.argument?.literal),
        TSExternalModuleReference: (node) => visit(node.expression),
      };
    },
  };
}

const SERVICE_FILE = /^services\/([^/]+)\//;

export default {
  meta: { name: "stsfleet-boundaries" },
  rules: {
    "no-cross-service-import": boundaryRule(
      "A service imports only its own files, services/common and protocol/, never another service's.",
      (file, target) => {
        const from = SERVICE_FILE.exec(file)?.[1];
        const to = SERVICE_FILE.exec(target)?.[1];
        if (from === undefined || to === undefined || to === from || to === "common") return undefined;
        return `services/${from} may not import ${target}: code two services share belongs in protocol/ or services/common.`;
      },
    ),
    "no-test-or-tools-import": boundaryRule(
      "Production code never imports the test tree or the tools (simulator, CLI, bench, chaos).",
      (_file, target) =>
        target.startsWith("test/") || target.startsWith("tools/")
          ? `Production code may not import ${target}: test harnesses live in test/support/ and are imported by tests only.`
          : undefined,
    ),
  },
};
