// CPython's list.sort, as far as the comparisons it makes. The order of a sort is the same from any stable sort; the
// comparisons are not, and a comparison Python cannot make (1 < 'a') is a TypeError naming its operands in order.

/**
 * Sorts `items` in place by `less` (a < b), stably. Under 64 items it makes CPython's comparisons in CPython's order
 * (the leading run, then binary insertion), so the first comparison that throws is the one Python's would be; longer
 * lists sort by the same comparison in V8's order.
 */
export function pythonSort<T>(items: T[], less: (a: T, b: T) => boolean): void {
  const n = items.length;
  if (n < 2) return;
  if (n >= 64) {
    items.sort((a, b) => (less(a, b) ? -1 : less(b, a) ? 1 : 0));
    return;
  }
  // count_run: a strictly descending start is reversed, an ascending one kept.
  let run = 2;
  if (less(items[1]!, items[0]!)) {
    while (run < n && less(items[run]!, items[run - 1]!)) run++;
    reverse(items, 0, run);
  } else {
    while (run < n && !less(items[run]!, items[run - 1]!)) run++;
  }
  // binarysort: each later item goes after every item it is not less than.
  for (let start = run; start < n; start++) {
    const pivot = items[start]!;
    let low = 0;
    let high = start;
    do {
      const middle = low + ((high - low) >> 1);
      if (less(pivot, items[middle]!)) high = middle;
      else low = middle + 1;
    } while (low < high);
    for (let i = start; i > low; i--) items[i] = items[i - 1]!;
    items[low] = pivot;
  }
}

function reverse<T>(items: T[], from: number, to: number): void {
  for (let i = from, j = to - 1; i < j; i++, j--) [items[i], items[j]] = [items[j]!, items[i]!];
}
