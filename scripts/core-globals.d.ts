// The only host APIs the core may use: Web platform ones that browsers, Workers, edge runtimes and Node all have.
// tsconfig.core.json type-checks src/core.ts with these and nothing else (no @types/node, no DOM), so a core
// module that reaches for process, Buffer, console or a node: module fails to compile.
declare var crypto: { getRandomValues<T extends Uint8Array>(array: T): T };
declare function structuredClone<T>(value: T): T;
