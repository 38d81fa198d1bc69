#!/usr/bin/env node
// Off a terminal (scripts, cron, CI logs) an error stays on one line: oclif would wrap it at 80 columns.
if (!process.stderr.isTTY) process.env.OCLIF_COLUMNS ??= '400'
const {execute} = await import('@oclif/core')

await execute({dir: import.meta.url})
