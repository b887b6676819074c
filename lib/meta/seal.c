/* seal.c - the checksum that binds a code object's launch metadata to the
 * object's bytes (softgen/meta.h: sg_meta_format_unsealed, sg_meta_seal,
 * sg_meta_verify).
 *
 * Needs: lib/meta (locate.h: where the metadata lies), base/sha256. libc
 * only: the runtime links it. Produces: the placeholder line codegen writes,
 * the seal the compile driver applies to each finished object, and the check
 * the runtime, `softgen --inspect` and the Python package make before they
 * trust a code object's metadata.
 *
 * The checksum line is the metadata's second line, "checksum " and 64 digits.
 * Its digits lie at 64 places of the object: consecutive bytes of raw text
 * (ELF objects), or 64 entries of a PTX byte list (each the two decimal digits
 * of one character). The digest is the SHA-256 of the object with each of
 * those places read as the placeholder ('0', or "48" in PTX), so the digits
 * cover every other byte and sealing is idempotent. */
#include <stdlib.h>
#include <string.h>

#include "meta/locate.h"
#include "softgen/meta.h"
#include "base/sha256.h"

#define DIGITS SG_META_CHECKSUM_DIGITS

static const char key[] = "checksum ";

static const char damaged[] = "the code object is damaged or was edited after softgen wrote "
                              "it: regenerate it with softgen";

static int is_fatbin(const unsigned char *p, size_t size) {
  return size >= 4 && p[0] == 0x50 && p[1] == 0xed && p[2] == 0x55 && p[3] == 0xba;
}

static int hex_digit(char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'); }

/* The checksum line of the metadata t of object p: the offsets of its 64
 * digits in the object (at) and their current value (hex, NUL-terminated). */
static sg_status find_digits(const char *p, size_t size, const sgmd_text *t, size_t at[DIGITS],
                             char hex[DIGITS + 1], sg_diag *diag) {
  size_t m = strlen(SG_META_MAGIC), k = sizeof key - 1;
  if (t->len < m || memcmp(t->text, SG_META_MAGIC, m) != 0) /* a PTX list's first bytes */
    return sg_diag_set(diag, SG_ERR_PARSE, "metadata does not start with 'softgen-meta 1': %s",
                       damaged);
  if (t->len < m + k || memcmp(t->text + m, key, k) != 0)
    return sg_diag_set(diag, SG_ERR_PARSE, "code object has no checksum in its metadata (line 2 "
                       "must be 'checksum' and %d hex digits): %s", DIGITS, damaged);
  int ok = t->len > m + k + DIGITS && t->text[m + k + DIGITS] == '\n';
  for (size_t i = 0; ok && i < DIGITS; i++)
    ok = hex_digit(t->text[m + k + i]);
  if (ok && t->ptx && sgmd_ptx_entries(p, size, t, m + k, DIGITS, at) == 0)
    for (size_t i = 0; ok && i < DIGITS; i++) /* two decimal digits each: sealed in place */
      ok = at[i] + 2 <= size && (at[i] + 2 == size || p[at[i] + 2] < '0' || p[at[i] + 2] > '9');
  else if (ok && t->ptx)
    ok = 0;
  if (!ok)
    return sg_diag_set(diag, SG_ERR_PARSE, "code object's metadata checksum is malformed (%d hex "
                       "digits 0-9, A-F expected): %s", DIGITS, damaged);
  for (size_t i = 0; i < DIGITS; i++) {
    if (!t->ptx)
      at[i] = t->at + m + k + i;
    hex[i] = t->text[m + k + i];
  }
  hex[DIGITS] = '\0';
  return SG_OK;
}

/* SHA-256 of p with the digits at at[] read as the placeholder, in hex. */
static void digest(const char *p, size_t size, const size_t at[DIGITS], int ptx,
                   char hex[DIGITS + 1]) {
  static const char x[] = "0123456789ABCDEF";
  sgb_sha256 s;
  sgb_sha256_init(&s);
  size_t pos = 0, width = ptx ? 2 : 1;
  for (size_t i = 0; i < DIGITS; i++) {
    sgb_sha256_update(&s, p + pos, at[i] - pos);
    sgb_sha256_update(&s, ptx ? "48" : "0", width);
    pos = at[i] + width;
  }
  sgb_sha256_update(&s, p + pos, size - pos);
  unsigned char d[32];
  sgb_sha256_final(&s, d);
  for (int i = 0; i < 32; i++) {
    hex[2 * i] = x[d[i] >> 4];
    hex[2 * i + 1] = x[d[i] & 15];
  }
  hex[DIGITS] = '\0';
}

/* Locates the metadata and its checksum digits; the caller frees t->owned. */
static sg_status find(const void *object, size_t size, const char *what, sgmd_text *t,
                      size_t at[DIGITS], char hex[DIGITS + 1], sg_diag *diag) {
  if (!object)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "%s: null object", what);
  if (is_fatbin(object, size))
    return sg_diag_set(diag, SG_ERR_UNSUPPORTED, "fatbins are not loaded: the driver runs one of "
                       "their entries, which softgen cannot check against the metadata's "
                       "checksum; load the .cubin or .ptx softgen wrote");
  if (!sgmd_locate(object, size, t))
    return sg_diag_set(diag, SG_ERR_PARSE,
                       "no softgen metadata ('" SG_META_SYMBOL "') in this code object");
  sg_status st = find_digits(object, size, t, at, hex, diag);
  if (st) {
    free(t->owned);
    t->owned = NULL;
  }
  return st;
}

sg_status sg_meta_seal(void *object, size_t size, sg_diag *diag) {
  sgmd_text t;
  size_t at[DIGITS];
  char old[DIGITS + 1], hex[DIGITS + 1];
  sg_status st = find(object, size, "sg_meta_seal", &t, at, old, diag);
  if (st)
    return st;
  char *p = object;
  digest(p, size, at, t.ptx, hex);
  for (size_t i = 0; i < DIGITS; i++) {
    if (!t.ptx) {
      p[at[i]] = hex[i];
      continue;
    }
    unsigned v = (unsigned char)hex[i]; /* 48-57, 65-70 */
    p[at[i]] = (char)('0' + v / 10);
    p[at[i] + 1] = (char)('0' + v % 10);
  }
  free(t.owned);
  return SG_OK;
}

sg_status sg_meta_verify(const void *object, size_t size, sg_diag *diag) {
  sgmd_text t;
  size_t at[DIGITS];
  char have[DIGITS + 1], want[DIGITS + 1];
  sg_status st = find(object, size, "sg_meta_verify", &t, at, have, diag);
  if (st)
    return st;
  digest(object, size, at, t.ptx, want);
  free(t.owned);
  if (strspn(have, "0") == DIGITS)
    return sg_diag_set(diag, SG_ERR_PARSE, "code object was never sealed (its checksum is the "
                       "placeholder of %d zeros): softgen writes it when it emits the object; "
                       "regenerate the object with softgen (--emit obj, so or asm) rather than "
                       "assembling its .ll or .s by hand", DIGITS);
  /* compared by accumulating differences, not strcmp: a fuzzer that hooks string
   * compares (libFuzzer) would learn the right digits and seal its own inputs */
  unsigned char diff = 0;
  for (size_t i = 0; i < DIGITS; i++)
    diff |= (unsigned char)(have[i] ^ want[i]);
  if (diff)
    return sg_diag_set(diag, SG_ERR_PARSE, "code object's checksum does not match its bytes: %s",
                       damaged);
  return SG_OK;
}

sg_status sg_meta_format_unsealed(const sg_meta *meta, char *buf, size_t cap, size_t *len,
                                  sg_diag *diag) {
  size_t n, m = strlen(SG_META_MAGIC), line = sizeof key - 1 + DIGITS + 1;
  sg_status st = sg_meta_format(meta, buf, cap, &n, diag);
  if (st)
    return st;
  if (n + line >= cap)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "metadata does not fit in %zu bytes", cap);
  memmove(buf + m + line, buf + m, n - m + 1);
  memcpy(buf + m, key, sizeof key - 1);
  memset(buf + m + sizeof key - 1, '0', DIGITS);
  buf[m + line - 1] = '\n';
  if (len)
    *len = n + line;
  return SG_OK;
}
