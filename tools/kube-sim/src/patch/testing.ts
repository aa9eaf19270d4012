// Test helper shared by the patch engine's tests (not a test file itself).
import assert from "node:assert/strict";
import { PatchError } from "./errors.ts";

/** Runs `action` and returns the PatchError it throws; fails the test if it throws nothing or something else. */
export function expectPatchError(action: () => unknown): PatchError {
  try {
    action();
  } catch (error) {
    if (error instanceof PatchError) return error;
    throw error;
  }
  assert.fail("expected a PatchError");
}
