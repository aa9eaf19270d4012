import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  canonicalQuantity,
  canonicalQuantityExact,
  compareQuantities,
  formatQuantity,
  parseQuantity,
  roundUp,
  type Quantity,
  type QuantityFormat,
} from "./quantity.ts";

function mustParse(text: string): Quantity {
  const result = parseQuantity(text);
  if (!result.ok) throw new Error(`${text}: ${result.error}`);
  return result.quantity;
}

function dec(value: bigint, exponent: number, format: QuantityFormat): Quantity {
  return { unscaled: value, exp: exponent, format };
}

describe("parseQuantity (upstream TestQuantityParse)", () => {
  const table: [string, bigint, number, QuantityFormat][] = [
    ["0", 0n, 0, "DecimalSI"],
    ["0n", 0n, 0, "DecimalSI"],
    ["0u", 0n, 0, "DecimalSI"],
    ["0m", 0n, 0, "DecimalSI"],
    ["0Ki", 0n, 0, "BinarySI"],
    ["0k", 0n, 0, "DecimalSI"],
    ["0Mi", 0n, 0, "BinarySI"],
    ["0Gi", 0n, 0, "BinarySI"],
    ["0Ti", 0n, 0, "BinarySI"],
    ["0T", 0n, 0, "DecimalSI"],
    ["1", 1n, 0, "DecimalSI"],
    ["1Ki", 1024n, 0, "BinarySI"],
    ["8Ki", 8n * 1024n, 0, "BinarySI"],
    ["7Mi", 7n * 1024n ** 2n, 0, "BinarySI"],
    ["6Gi", 6n * 1024n ** 3n, 0, "BinarySI"],
    ["5Ti", 5n * 1024n ** 4n, 0, "BinarySI"],
    ["4Pi", 4n * 1024n ** 5n, 0, "BinarySI"],
    ["3Ei", 3n * 1024n ** 6n, 0, "BinarySI"],
    ["10Ti", 10n * 1024n ** 4n, 0, "BinarySI"],
    ["100Ti", 100n * 1024n ** 4n, 0, "BinarySI"],
    ["5n", 5n, -9, "DecimalSI"],
    ["4u", 4n, -6, "DecimalSI"],
    ["3m", 3n, -3, "DecimalSI"],
    ["9", 9n, 0, "DecimalSI"],
    ["8k", 8n, 3, "DecimalSI"],
    ["50k", 5n, 4, "DecimalSI"],
    ["7M", 7n, 6, "DecimalSI"],
    ["6G", 6n, 9, "DecimalSI"],
    ["5T", 5n, 12, "DecimalSI"],
    ["40T", 4n, 13, "DecimalSI"],
    ["300T", 3n, 14, "DecimalSI"],
    ["2P", 2n, 15, "DecimalSI"],
    ["1E", 1n, 18, "DecimalSI"],
    ["1E-3", 1n, -3, "DecimalExponent"],
    ["1e3", 1n, 3, "DecimalExponent"],
    ["1E6", 1n, 6, "DecimalExponent"],
    ["1e9", 1n, 9, "DecimalExponent"],
    ["1E12", 1n, 12, "DecimalExponent"],
    ["1e15", 1n, 15, "DecimalExponent"],
    ["1E18", 1n, 18, "DecimalExponent"],
    ["1e14", 1n, 14, "DecimalExponent"],
    ["1e13", 1n, 13, "DecimalExponent"],
    ["100.035k", 100035n, 0, "DecimalSI"],
    ["0.001", 1n, -3, "DecimalSI"],
    ["0.0005k", 5n, -1, "DecimalSI"],
    ["0.005", 5n, -3, "DecimalSI"],
    ["0.05", 5n, -2, "DecimalSI"],
    ["0.5", 5n, -1, "DecimalSI"],
    ["0.00050k", 5n, -1, "DecimalSI"],
    ["0.00500", 5n, -3, "DecimalSI"],
    ["0.05000", 5n, -2, "DecimalSI"],
    ["0.50000", 5n, -1, "DecimalSI"],
    ["0.5e0", 5n, -1, "DecimalExponent"],
    ["0.5e-1", 5n, -2, "DecimalExponent"],
    ["0.5e-2", 5n, -3, "DecimalExponent"],
    ["10.035M", 10035n, 3, "DecimalSI"],
    ["1.2e3", 12n, 2, "DecimalExponent"],
    ["1.3E+6", 13n, 5, "DecimalExponent"],
    ["1.40e9", 14n, 8, "DecimalExponent"],
    ["1.53E12", 153n, 10, "DecimalExponent"],
    ["1.6e15", 16n, 14, "DecimalExponent"],
    ["1.7E18", 17n, 17, "DecimalExponent"],
    ["9.01", 901n, -2, "DecimalSI"],
    ["8.1k", 81n, 2, "DecimalSI"],
    ["7.123456M", 7123456n, 0, "DecimalSI"],
    ["6.987654321G", 6987654321n, 0, "DecimalSI"],
    ["5.444T", 5444n, 9, "DecimalSI"],
    ["40.1T", 401n, 11, "DecimalSI"],
    ["300.2T", 3002n, 11, "DecimalSI"],
    ["2.5P", 25n, 14, "DecimalSI"],
    ["1.01E", 101n, 16, "DecimalSI"],
    // Things that saturate/round
    ["3.001n", 4n, -9, "DecimalSI"],
    ["1.1E-9", 2n, -9, "DecimalExponent"],
    ["0.0000000001", 1n, -9, "DecimalSI"],
    ["0.0000000005", 1n, -9, "DecimalSI"],
    ["0.00000000050", 1n, -9, "DecimalSI"],
    ["0.5e-9", 1n, -9, "DecimalExponent"],
    ["0.9n", 1n, -9, "DecimalSI"],
    ["0.00000012345", 124n, -9, "DecimalSI"],
    ["0.00000012354", 124n, -9, "DecimalSI"],
    ["9Ei", (1n << 63n) - 1n, 0, "BinarySI"],
    ["9223372036854775807Ki", (1n << 63n) - 1n, 0, "BinarySI"],
    ["12E", 12n, 18, "DecimalSI"],
    // Fractional binary
    ["100.035Ki", 10243584n, -2, "BinarySI"],
    ["0.5Mi", 524288n, 0, "BinarySI"],
    ["0.05Gi", 536870912n, -1, "BinarySI"],
    ["0.025Ti", 274877906944n, -1, "BinarySI"],
    // Things written by trolls
    ["0.000000000001Ki", 2n, -9, "DecimalSI"],
    [".001", 1n, -3, "DecimalSI"],
    [".0001k", 100n, -3, "DecimalSI"],
    ["1.", 1n, 0, "DecimalSI"],
    ["1.G", 1n, 9, "DecimalSI"],
  ];

  for (const [input, value, exponent, format] of table) {
    it(`${input} parses to ${value}e${exponent} ${format}, and so do -${input} and +${input}`, () => {
      const got = mustParse(input);
      assert.equal(compareQuantities(got, dec(value, exponent, format)), 0, formatQuantity(got));
      assert.equal(got.format, format);
      const negative = mustParse(`-${input}`);
      assert.equal(compareQuantities(negative, dec(-value, exponent, format)), 0);
      assert.equal(negative.format, format);
      const positive = mustParse(`+${input}`);
      assert.equal(compareQuantities(positive, dec(value, exponent, format)), 0);
    });
  }

  it("rejects the upstream invalid list, with upstream's error texts", () => {
    for (const input of ["1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i", "-3.01e-", ""]) {
      const result = parseQuantity(input);
      assert.equal(result.ok, false, input);
    }
    const wrong = parseQuantity("aoeu");
    assert.ok(!wrong.ok && wrong.error.startsWith("quantities must match the regular expression"));
    const suffix = parseQuantity("1i");
    assert.ok(!suffix.ok && suffix.error === "unable to parse quantity's suffix");
  });

  it("trims whitespace as UnmarshalJSON does (TestJSONWhitespace)", () => {
    assert.equal(canonicalQuantity(" 1"), "1");
    assert.equal(canonicalQuantity("1 "), "1");
    assert.equal(canonicalQuantity(" -1"), "-1");
  });
});

describe("formatQuantity (upstream TestQuantityString and TestQuantityParseEmit)", () => {
  const table: [Quantity, string, string][] = [
    [dec(1024n ** 3n, 0, "BinarySI"), "1Gi", "1024Mi"],
    [dec(300n * 1024n ** 2n, 0, "BinarySI"), "300Mi", "307200Ki"],
    [dec(6n * 1024n, 0, "BinarySI"), "6Ki", ""],
    [dec(1001n * 1024n ** 3n, 0, "BinarySI"), "1001Gi", "1025024Mi"],
    [dec(1024n ** 4n, 0, "BinarySI"), "1Ti", "1024Gi"],
    [dec(5n, 0, "BinarySI"), "5", "5000m"],
    [dec(500n, -3, "BinarySI"), "500m", "0.5"],
    [dec(1n, 9, "DecimalSI"), "1G", "1000M"],
    [dec(1000n, 6, "DecimalSI"), "1G", "0.001T"],
    [dec(1000000n, 3, "DecimalSI"), "1G", ""],
    [dec(1000000000n, 0, "DecimalSI"), "1G", ""],
    [dec(1n, -3, "DecimalSI"), "1m", "1000u"],
    [dec(80n, -3, "DecimalSI"), "80m", ""],
    [dec(1080n, -3, "DecimalSI"), "1080m", "1.08"],
    [dec(108n, -2, "DecimalSI"), "1080m", "1080000000n"],
    [dec(10800n, -4, "DecimalSI"), "1080m", ""],
    [dec(300n, 6, "DecimalSI"), "300M", ""],
    [dec(1n, 12, "DecimalSI"), "1T", ""],
    [dec(1n, 18, "DecimalSI"), "1E", ""],
    [dec(1n, 21, "DecimalSI"), "1e21", "1000E"],
    [dec(5n, 21, "DecimalSI"), "5e21", "5000E"],
    [dec(1234567n, 6, "DecimalSI"), "1234567M", ""],
    [dec(1234567n, -3, "BinarySI"), "1234567m", ""],
    [dec(3n, 3, "DecimalSI"), "3k", ""],
    [dec(1025n, 0, "BinarySI"), "1025", ""],
    [dec(0n, 0, "DecimalSI"), "0", ""],
    [dec(0n, 0, "BinarySI"), "0", ""],
    [dec(1n, 9, "DecimalExponent"), "1e9", ".001e12"],
    [dec(1n, -3, "DecimalExponent"), "1e-3", "0.001e0"],
    [dec(1n, -9, "DecimalExponent"), "1e-9", "1000e-12"],
    [dec(80n, -3, "DecimalExponent"), "80e-3", ""],
    [dec(300n, 6, "DecimalExponent"), "300e6", ""],
    [dec(1n, 12, "DecimalExponent"), "1e12", ""],
    [dec(1n, 3, "DecimalExponent"), "1e3", ""],
    [dec(3n, 3, "DecimalExponent"), "3e3", ""],
    [dec(0n, 0, "DecimalExponent"), "0", "00"],
    [dec(1n, -9, "DecimalSI"), "1n", ""],
    [dec(80n, -9, "DecimalSI"), "80n", ""],
    [dec(1080n, -9, "DecimalSI"), "1080n", ""],
    [dec(108n, -8, "DecimalSI"), "1080n", ""],
    [dec(10800n, -10, "DecimalSI"), "1080n", ""],
    [dec(1n, -6, "DecimalSI"), "1u", ""],
    [dec(80n, -6, "DecimalSI"), "80u", ""],
    [dec(1080n, -6, "DecimalSI"), "1080u", ""],
  ];

  for (const [quantity, expected, alternate] of table) {
    it(`${expected} is canonical and re-parses to itself${alternate === "" ? "" : `; ${alternate} canonicalizes to it`}`, () => {
      assert.equal(formatQuantity(quantity), expected);
      if (quantity.unscaled !== 0n) {
        assert.equal(formatQuantity({ ...quantity, unscaled: -quantity.unscaled }), `-${expected}`);
      }
      const parsed = mustParse(expected);
      assert.equal(parsed.cached, expected, "canonical input keeps its string");
      if (alternate !== "") {
        const other = mustParse(alternate);
        assert.equal(other.cached, undefined, "non-canonical input is re-emitted");
        assert.equal(formatQuantity(other), expected);
      }
    });
  }

  it("re-emits parsed values (TestQuantityParseEmit)", () => {
    const table: [string, string][] = [
      ["1Ki", "1Ki"],
      ["1Mi", "1Mi"],
      ["1Gi", "1Gi"],
      ["1024Mi", "1Gi"],
      ["1000M", "1G"],
      [".001Ki", "1024m"],
      [".000001Ki", "1024u"],
      [".000000001Ki", "1024n"],
      [".000000000001Ki", "2n"],
    ];
    for (const [input, expected] of table) {
      assert.equal(formatQuantity(mustParse(input)), expected, input);
      assert.equal(formatQuantity(mustParse(`-${input}`)), `-${expected}`, `-${input}`);
    }
  });

  it("rounds up away from zero (TestQuantityRoundUp)", () => {
    const table: [string, number, string][] = [
      ["9.01", -3, "9010m"],
      ["9.01", -2, "9010m"],
      ["9.01", -1, "9100m"],
      ["9.01", 0, "10"],
      ["9.01", 1, "10"],
      ["9.01", 2, "100"],
      ["-9.01", -1, "-9100m"],
      ["-9.01", 0, "-10"],
      ["-9.01", 2, "-100"],
    ];
    for (const [input, scale, expected] of table) {
      assert.equal(formatQuantity(roundUp(mustParse(input), scale)), expected, `${input} at ${scale}`);
    }
  });
});

describe("canonicalQuantity (as a ResourceList stores it)", () => {
  const table: [string, string][] = [
    ["0.5", "500m"],
    ["1Gi", "1Gi"],
    ["1000m", "1"],
    ["1073741824", "1073741824"],
    ["1e3", "1e3"],
    ["1000", "1k"],
    ["0.1Gi", "107374182400m"],
    ["1.5Gi", "1536Mi"],
    ["100m", "100m"],
    ["1500u", "2m"],
    ["0.1m", "1m"],
    ["10Gi", "10Gi"],
    ["2048Mi", "2Gi"],
    ["+1", "+1"],
    ["05", "05"],
    ["-0", "0"],
    ["garbage", "garbage"],
  ];
  for (const [input, expected] of table) {
    it(`${JSON.stringify(input)} is stored as ${JSON.stringify(expected)}`, () => {
      assert.equal(canonicalQuantity(input), expected);
    });
  }

  it("keeps sub-milli precision outside resource lists", () => {
    assert.equal(canonicalQuantityExact("1500u"), "1500u");
    assert.equal(canonicalQuantityExact("0.5"), "500m");
  });

  it("is idempotent and never throws on arbitrary strings", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const once = canonicalQuantity(text);
        assert.equal(canonicalQuantity(once), once);
      }),
      { numRuns: 500 },
    );
  });

  it("preserves the value of well-formed quantities", () => {
    const quantity = fc
      .tuple(
        fc.constantFrom("", "-", "+"),
        fc.stringMatching(/^[0-9]{1,12}$/),
        fc.option(fc.stringMatching(/^[0-9]{0,6}$/)),
        fc.constantFrom("", "m", "k", "M", "G", "Ki", "Mi", "Gi", "e3", "e-2"),
      )
      .map(([s, n, d, suffix]) => `${s}${n}${d === null ? "" : `.${d}`}${suffix}`);
    fc.assert(
      fc.property(quantity, (text) => {
        const original = mustParse(text);
        const stored = mustParse(canonicalQuantity(text));
        const milli = roundUp(original, -3);
        assert.equal(compareQuantities(stored, milli), 0, `${text} -> ${canonicalQuantity(text)}`);
      }),
      { numRuns: 500 },
    );
  });
});
