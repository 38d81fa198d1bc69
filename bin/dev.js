#!/usr/bin/env -S node --import tsx --no-warnings
// Runs the TypeScript sources directly (no build), for development.
import {execute} from '@oclif/core/execute'

await execute({development: true, dir: import.meta.url})
