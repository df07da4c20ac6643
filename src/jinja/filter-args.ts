// Argument access shared by the filter modules (jinja2 filters take positional or keyword arguments).
export type Kwargs = Record<string, unknown> | null;

export function arg(args: unknown[], kwargs: Kwargs, index: number, name: string, fallback: unknown): unknown {
  if (index < args.length) return args[index];
  if (kwargs && Object.prototype.hasOwnProperty.call(kwargs, name)) return kwargs[name];
  return fallback;
}

