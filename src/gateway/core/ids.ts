const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Random letters and digits from Web Crypto (Node ≥ 20 and browsers alike). */
export function randomToken(length = 24): string {
  const bytes = new Uint8Array(length * 2);
  let token = '';
  while (token.length < length) {
    crypto.getRandomValues(bytes);
    // Rejection sampling keeps the alphabet uniform (248 = 4 × 62).
    for (const byte of bytes) if (byte < 248 && token.length < length) token += ALPHABET[byte % 62];
  }
  return token;
}
