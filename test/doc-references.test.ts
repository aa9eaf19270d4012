// Every citation of a document inside the repository resolves: ADR paths (`docs/adr/NNNN-slug.md`, or just
// `docs/adr/NNNN`) and `ADR NNNN` mentions in code and Markdown name an ADR that exists and is listed in
// docs/adr/README.md, and every relative Markdown link points at a file or folder that exists. The scan covers
// the *.ts and *.md files under the source and docs folders plus the top-level README.md.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";

const repoRoot = fileURLToPath(new URL("..", import.meta.url));
const ROOTS = ["protocol", "services", "tools", "test", "docs"] as const;
const TOP_LEVEL = ["README.md"] as const;
const SKIP_DIRS = new Set(["node_modules", ".git", ".stsfleet", ".bench", ".tmp", "coverage"]);
const ADR_DIR = "docs/adr";

interface Source {
  readonly path: string;
  readonly text: string;
}

function walk(dir: string, out: string[]): void {
  for (const entry of readdirSync(join(repoRoot, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) walk(path, out);
    } else if (entry.name.endsWith(".ts") || entry.name.endsWith(".md")) {
      out.push(path);
    }
  }
}

function sources(): Source[] {
  const paths: string[] = [...TOP_LEVEL];
  for (const root of ROOTS) walk(root, paths);
  return paths.map((path) => ({ path, text: readFileSync(join(repoRoot, path), "utf8") }));
}

const SOURCES = sources();

/** `path:line` of offset `index` in `source`. */
function where(source: Source, index: number): string {
  return `${source.path}:${source.text.slice(0, index).split("\n").length}`;
}

// --- the ADRs and their index ----------------------------------------------------------------------------------

const ADR_FILES = new Map<string, string>(); // number → file name
for (const name of readdirSync(join(repoRoot, ADR_DIR))) {
  const number = /^(\d{4})-.*\.md$/.exec(name)?.[1];
  if (number !== undefined) ADR_FILES.set(number, name);
}
const INDEX_PATH = `${ADR_DIR}/README.md`;
const INDEXED = new Set(
  [...readFileSync(join(repoRoot, INDEX_PATH), "utf8").matchAll(/\]\((\d{4})-[^)\s]*\.md\)/g)].map((m) => m[1]),
);

/** Why ADR `number` cannot be cited, or undefined when it can. */
function adrProblem(number: string): string | undefined {
  if (!ADR_FILES.has(number)) return `no ADR ${number} in ${ADR_DIR}/`;
  if (!INDEXED.has(number)) return `ADR ${number} is not listed in ${INDEX_PATH}`;
  return undefined;
}

// --- Markdown links --------------------------------------------------------------------------------------------

/** The text with fenced code blocks and inline code blanked out (same length, so offsets and lines still hold). */
function proseOf(markdown: string): string {
  const blank = (s: string): string => s.replace(/[^\n]/g, " ");
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, blank).replace(/`[^`\n]*`/g, blank);
}

const INLINE_LINK = /\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const REFERENCE_DEFINITION = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm;
const EXTERNAL = /^(?:[a-z][a-z0-9+.-]*:|\/\/|#)/i;

describe("doc references resolve", () => {
  it("scans the repository", () => {
    assert.ok(SOURCES.length > 100, `only ${SOURCES.length} files scanned`);
    assert.ok(ADR_FILES.size > 0 && INDEXED.size > 0);
  });

  it("every ADR is listed in docs/adr/README.md", () => {
    assert.deepEqual([...ADR_FILES.keys()].filter((n) => !INDEXED.has(n)).map((n) => ADR_FILES.get(n)), []);
  });

  it("every docs/adr/ path names an existing, indexed ADR", () => {
    const broken: string[] = [];
    for (const source of SOURCES) {
      for (const m of source.text.matchAll(/docs\/adr\/(\d{4})([A-Za-z0-9._-]*)/g)) {
        const [cited, number = "", rest = ""] = m;
        const name = `${number}${rest.replace(/[.,;:]+$/, "")}`;
        const problem = rest.startsWith("-")
          ? name.endsWith(".md") && existsSync(join(repoRoot, ADR_DIR, name))
            ? adrProblem(number)
            : `no file ${ADR_DIR}/${name}${ADR_FILES.has(number) ? ` (ADR ${number} is ${ADR_FILES.get(number)})` : ""}`
          : adrProblem(number);
        if (problem) broken.push(`${where(source, m.index)}: ${cited}: ${problem}`);
      }
    }
    assert.deepEqual(broken, []);
  });

  it("every `ADR NNNN` mention names an existing, indexed ADR", () => {
    const broken: string[] = [];
    for (const source of SOURCES) {
      for (const m of source.text.matchAll(/\bADRs?[ -](\d{4})((?:\s*(?:,|and|or|&|\/)\s*(?:ADR[ -])?\d{4})*)/g)) {
        for (const number of m[0].match(/\d{4}/g) ?? []) {
          const problem = adrProblem(number);
          if (problem) broken.push(`${where(source, m.index)}: ${m[0]}: ${problem}`);
        }
      }
    }
    assert.deepEqual(broken, []);
  });

  it("every relative Markdown link points inside the repository at something that exists", () => {
    const broken: string[] = [];
    let checked = 0;
    for (const source of SOURCES.filter((s) => s.path.endsWith(".md"))) {
      const prose = proseOf(source.text);
      for (const m of [...prose.matchAll(INLINE_LINK), ...prose.matchAll(REFERENCE_DEFINITION)]) {
        const href = m[1] ?? "";
        if (EXTERNAL.test(href)) continue;
        const target = decodeURIComponent(href.replace(/[#?].*$/, ""));
        if (target === "") continue;
        checked++;
        const absolute = target.startsWith("/") ? join(repoRoot, target) : resolve(repoRoot, dirname(source.path), target);
        const inside = relative(repoRoot, absolute);
        if (inside.startsWith("..")) broken.push(`${where(source, m.index)}: ${href}: outside the repository`);
        else if (!existsSync(absolute)) broken.push(`${where(source, m.index)}: ${href}: no such file`);
      }
    }
    assert.deepEqual(broken, []);
    assert.ok(checked > 60, `only ${checked} relative links found: is the link pattern still right?`);
  });
});
