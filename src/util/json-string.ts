/**
 * The closing quote of the JSON string literal opened at `open`, or -1 when it has none: the first quote after it
 * not escaped by an odd run of backslashes, found with indexOf. The opening quote stops each backward count, so every
 * backslash is looked at once and the scan stays linear on any text.
 */
export function jsonStringEnd(text: string, open: number): number {
  let end = text.indexOf('"', open + 1);
  while (end !== -1) {
    let slashes = 0;
    while (text.charCodeAt(end - 1 - slashes) === 0x5c) slashes++;
    if ((slashes & 1) === 0) return end;
    end = text.indexOf('"', end + 1);
  }
  return -1;
}
