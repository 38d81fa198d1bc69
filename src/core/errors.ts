/**
 * Errors the user can act on. Each carries a stable code, the exit code the CLI uses, and a hint
 * ("what to try"). Anything else reaching the command layer is a bug or a runtime failure (exit 1).
 */
export class RdError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly exitCode: number,
    readonly hint?: string,
  ) {
    super(message)
    this.name = new.target.name
  }
}

/** Bad input given by the user: flags, arguments, files. Exit 2. */
export class InputError extends RdError {
  constructor(message: string, hint?: string, code = 'BAD_INPUT') {
    super(message, code, 2, hint)
  }
}

/** Runs a parser that throws plain errors naming the value; a failure becomes a usage error with what to give. */
export function asUsage<T>(parse: () => T, hint: string, code: string): T {
  try {
    return parse()
  } catch (error) {
    throw new InputError((error as Error).message, hint, code)
  }
}

/** A failure while running: the cluster, the network, the file system. Exit 1. */
export class RuntimeError extends RdError {
  constructor(message: string, hint?: string, code = 'RUNTIME') {
    super(message, code, 1, hint)
  }
}
