// The Python functions behind jinja2 3.1's builtin filters, as Python's messages name and count them (the async-aware
// filters run their `sync_do_*` function; a `|tojson` is transformers' json.dumps wrapper). A call these refuse
// fails here with the same TypeError (python-call.ts).
import type { PythonCallable } from './python-call.js';

const SIGNATURES: Record<string, string> = {
  attr: 'do_attr(environment, obj, name)',
  batch: 'do_batch(value, linecount, fill_with=)',
  capitalize: 'do_capitalize(s)',
  center: 'do_center(value, width=)',
  default: 'do_default(value, default_value=, boolean=)',
  d: 'do_default(value, default_value=, boolean=)',
  dictsort: 'do_dictsort(value, case_sensitive=, by=, reverse=)',
  e: 'escape(s/)',
  escape: 'escape(s/)',
  filesizeformat: 'do_filesizeformat(value, binary=)',
  first: 'sync_do_first(environment, seq)',
  float: 'do_float(value, default=)',
  forceescape: 'do_forceescape(value)',
  format: 'do_format(value, *args, **kwargs)',
  groupby: 'sync_do_groupby(environment, value, attribute, default=, case_sensitive=)',
  indent: 'do_indent(s, width=, first=, blank=)',
  int: 'do_int(value, default=, base=)',
  items: 'do_items(value)',
  join: 'sync_do_join(eval_ctx, value, d=, attribute=)',
  last: 'do_last(environment, seq)',
  list: 'sync_do_list(value)',
  lower: 'do_lower(s)',
  map: 'sync_do_map(context, value, *args, **kwargs)',
  max: 'do_max(environment, value, case_sensitive=, attribute=)',
  min: 'do_min(environment, value, case_sensitive=, attribute=)',
  pprint: 'do_pprint(value)',
  random: 'sync_do_random(context, seq)',
  reject: 'sync_do_reject(context, value, *args, **kwargs)',
  rejectattr: 'sync_do_rejectattr(context, value, *args, **kwargs)',
  replace: 'do_replace(eval_ctx, s, old, new, count=)',
  reverse: 'do_reverse(value)',
  round: 'do_round(value, precision=, method=)',
  safe: 'do_mark_safe(value)',
  select: 'sync_do_select(context, value, *args, **kwargs)',
  selectattr: 'sync_do_selectattr(context, value, *args, **kwargs)',
  slice: 'sync_do_slice(value, slices, fill_with=)',
  sort: 'do_sort(environment, value, reverse=, case_sensitive=, attribute=)',
  string: 'soft_str(s/)',
  striptags: 'do_striptags(value)',
  sum: 'sync_do_sum(environment, iterable, attribute=, start=)',
  title: 'do_title(s)',
  tojson: 'tojson(x, ensure_ascii=, indent=, separators=, sort_keys=)',
  trim: 'do_trim(value, chars=)',
  truncate: 'do_truncate(env, s, length=, killwords=, end=, leeway=)',
  unique: 'sync_do_unique(environment, value, case_sensitive=, attribute=)',
  upper: 'do_upper(s)',
  urlencode: 'do_urlencode(value)',
  wordcount: 'do_wordcount(s)',
  wordwrap: 'do_wordwrap(environment, s, width=, break_long_words=, wrapstring=, break_on_hyphens=)',
  xmlattr: 'do_xmlattr(eval_ctx, d, autospace=)',
};

/** Builtins: `|length` and `|count` are `len`, `|abs` is `abs`. */
const ONE_ARGUMENT: Record<string, string> = { length: 'len', count: 'len', abs: 'abs' };

export function pythonFilter(name: string): PythonCallable | undefined {
  const builtin = ONE_ARGUMENT[name];
  if (builtin !== undefined) return { kind: 'one-argument', name: builtin };
  const signature = SIGNATURES[name];
  return signature === undefined ? undefined : { kind: 'function', signature };
}
