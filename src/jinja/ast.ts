// AST of the template language (mirrors jinja2.nodes for the constructs chat templates use).
export type Expr =
  | { k: 'const'; value: unknown }
  | { k: 'name'; name: string; pos: number }
  | { k: 'list'; items: Expr[] }
  | { k: 'tuple'; items: Expr[] }
  | { k: 'dict'; pairs: Array<[Expr, Expr]> }
  | { k: 'getattr'; obj: Expr; attr: string }
  | { k: 'getitem'; obj: Expr; arg: Expr }
  | { k: 'slice'; start: Expr | null; stop: Expr | null; step: Expr | null }
  | ({ k: 'call'; fn: Expr } & CallArgs)
  | ({ k: 'filter'; node: Expr | null; name: string; pos: number } & CallArgs)
  | ({ k: 'test'; node: Expr; name: string; pos: number } & CallArgs)
  | { k: 'not'; node: Expr }
  | { k: 'neg'; node: Expr }
  | { k: 'pos'; node: Expr }
  | { k: 'bin'; op: string; left: Expr; right: Expr }
  | { k: 'and'; left: Expr; right: Expr }
  | { k: 'or'; left: Expr; right: Expr }
  | { k: 'concat'; nodes: Expr[] }
  | { k: 'compare'; first: Expr; ops: Array<[string, Expr]> }
  | { k: 'cond'; test: Expr; then: Expr; otherwise: Expr | null };

export interface CallArgs {
  args: Expr[];
  kwargs: Array<[string, Expr]>;
  dynArgs: Expr | null;
  dynKwargs: Expr | null;
}

export type Target =
  | { k: 'name'; name: string }
  | { k: 'tuple'; items: Target[] }
  | { k: 'nsref'; name: string; attr: string };

export interface Param {
  name: string;
  default: Expr | null;
}

export type Stmt =
  | { k: 'text'; value: string }
  | { k: 'print'; expr: Expr }
  | { k: 'if'; test: Expr; body: Stmt[]; otherwise: Stmt[] }
  | { k: 'for'; target: Target; iter: Expr; body: Stmt[]; otherwise: Stmt[]; test: Expr | null; recursive: boolean }
  | { k: 'set'; target: Target; value: Expr }
  | { k: 'setblock'; target: Target; filter: Expr | null; body: Stmt[] }
  | { k: 'macro'; name: string; params: Param[]; body: Stmt[] }
  | { k: 'callblock'; call: Expr; params: Param[]; body: Stmt[] }
  | { k: 'filterblock'; filter: Expr; body: Stmt[] }
  | { k: 'with'; targets: Target[]; values: Expr[]; body: Stmt[] }
  | { k: 'generation'; body: Stmt[] }
  | { k: 'scope'; body: Stmt[] }
  | { k: 'break' }
  | { k: 'continue' };
