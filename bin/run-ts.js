#!/usr/bin/env node
// Runs a TypeScript entry file (benchmarks, scripts) through tsx's loader.
import { pathToFileURL } from "node:url";
import "./preload.js";
import { register } from "tsx/esm/api";

register();
const [file, ...rest] = process.argv.slice(2);
if (!file) {
  console.error("usage: run-ts <file.ts> [args...]");
  process.exit(2);
}
process.argv = [process.argv[0], file, ...rest];
await import(pathToFileURL(file).href);
