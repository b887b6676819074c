// The checksum of code objects through the public API (softgen/meta.h, exported
// by libsoftgen_rt): sg_meta_format_unsealed writes the placeholder line;
// sg_meta_seal fills it in raw text (ELF) and in a PTX byte list, in place and
// idempotently; sg_meta_verify accepts the sealed object and refuses every
// copy with one byte changed, an unsealed one, one without a checksum line,
// a malformed checksum and fatbins; sg_meta_parse takes the checksum line
// only as line 2 and only as 64 hex digits.
// RUN: %cc -std=c11 -I%include -I%S/Inputs %s -L%rtlib -lsoftgen_rt -Wl,-rpath,%rtlib -o %t
// RUN: %t | FileCheck %s
// CHECK-NOT: not ok
// CHECK: ok - unsealed text: the placeholder is line 2
// CHECK: ok - raw: every changed byte is refused
// CHECK: ok - ptx: every changed byte is refused
// CHECK: {{^}}[[N:[0-9]+]] passed, 0 failed
#include "rt_test.h"

static int passed, failed;

static void check(int cond, const char *what) {
  cond ? passed++ : failed++;
  printf("%s - %s\n", cond ? "ok" : "not ok", what);
}

static int has(sg_status st, const sg_diag *d, sg_status want, const char *part) {
  if (st != want || !strstr(d->message, part)) {
    printf("# got %s: %s\n# want %s: ...%s...\n", sg_status_name(st), d->message,
           sg_status_name(want), part);
    return 0;
  }
  return 1;
}

/* Every single-byte change of obj (XOR 0x01 and 0x80 at each position) is
 * refused by sg_meta_verify with SG_ERR_PARSE. */
static int every_change_refused(const unsigned char *obj, size_t n) {
  static unsigned char copy[1 << 16];
  sg_diag d;
  for (size_t i = 0; i < n; i++)
    for (int mask = 1; mask <= 0x80; mask <<= 7) {
      memcpy(copy, obj, n);
      copy[i] ^= (unsigned char)mask;
      if (sg_meta_verify(copy, n, &d) != SG_ERR_PARSE) {
        printf("# byte %zu ^ 0x%x: %s\n", i, mask, d.message);
        return 0;
      }
    }
  return 1;
}

int main(void) {
  sg_meta m = test_meta();
  sg_diag d;
  char text[4096];
  size_t len = 0;
  check(sg_meta_format_unsealed(&m, text, sizeof text, &len, &d) == SG_OK &&
            len == strlen(text) && strncmp(text, "softgen-meta 1\nchecksum ", 24) == 0 &&
            strspn(text + 24, "0") == SG_META_CHECKSUM_DIGITS && text[24 + 64] == '\n' &&
            strncmp(text + 89, "kernel ", 7) == 0,
        "unsealed text: the placeholder is line 2");
  sg_meta back;
  check(sg_meta_parse(text, len, &back, &d) == SG_OK && back.n == m.n,
        "unsealed text parses");
  check(sg_meta_format_unsealed(&m, text, 100, &len, &d) == SG_ERR_INVALID_ARGUMENT,
        "unsealed text into a small buffer is SG_ERR_INVALID_ARGUMENT");

  /* raw text in binary bytes (an ELF object holds the initializer verbatim) */
  static unsigned char raw[2048], again[2048];
  size_t n = make_unsealed_object(&m, OBJ_ELF, raw, sizeof raw);
  check(has(sg_meta_verify(raw, n, &d), &d, SG_ERR_PARSE, "was never sealed"),
        "raw: an unsealed object is refused (never sealed)");
  check(sg_meta_seal(raw, n, &d) == SG_OK && sg_meta_verify(raw, n, &d) == SG_OK,
        "raw: sealed, it verifies");
  const char *digits = strstr((char *)raw + 64, "checksum ") + 9;
  check(strspn(digits, "0123456789ABCDEF") == SG_META_CHECKSUM_DIGITS &&
            strspn(digits, "0") < SG_META_CHECKSUM_DIGITS,
        "raw: the checksum is 64 uppercase hex digits");
  memcpy(again, raw, n);
  check(sg_meta_seal(again, n, &d) == SG_OK && memcmp(again, raw, n) == 0,
        "raw: sealing again gives the same bytes");
  check(sg_meta_find(raw, n, &back, &d) == SG_OK && back.n == m.n, "raw: the metadata parses");
  check(every_change_refused(raw, n), "raw: every changed byte is refused");
  check(sg_meta_verify(raw, n - 1, &d) == SG_ERR_PARSE, "raw: a truncated copy is refused");

  /* a PTX byte list: the digits are its entries */
  static unsigned char ptx[1 << 15], ptx2[1 << 15];
  size_t np = make_unsealed_object(&m, OBJ_PTX, ptx, sizeof ptx);
  check(sg_meta_verify(ptx, np, &d) == SG_ERR_PARSE, "ptx: an unsealed object is refused");
  memcpy(ptx2, ptx, np);
  check(sg_meta_seal(ptx, np, &d) == SG_OK && sg_meta_verify(ptx, np, &d) == SG_OK &&
            memcmp(ptx, ptx2, np) != 0,
        "ptx: sealed in place (same length), it verifies");
  check(sg_meta_find(ptx, np, &back, &d) == SG_OK && strcmp(back.kernel, m.kernel) == 0,
        "ptx: the metadata parses");
  check(every_change_refused(ptx, np), "ptx: every changed byte is refused");
  /* an entry of three digits ("048") cannot be sealed in place: malformed */
  char *first = strstr((char *)ptx2, ", 48, ");
  size_t at = (size_t)(first - (char *)ptx2) + 2;
  memmove(ptx2 + at + 1, ptx2 + at, np - at);
  ptx2[at] = '0';
  check(has(sg_meta_seal(ptx2, np + 1, &d), &d, SG_ERR_PARSE, "checksum is malformed"),
        "ptx: a checksum digit of three decimal digits is malformed");

  /* what sg_meta_verify refuses, and what it says */
  check(has(sg_meta_verify("no meta here", 12, &d), &d, SG_ERR_PARSE,
            "no softgen metadata ('softgen_meta') in this code object"),
        "verify: no metadata");
  sg_meta_format(&m, text, sizeof text, &len, &d);
  check(has(sg_meta_verify(text, len, &d), &d, SG_ERR_PARSE,
            "code object has no checksum in its metadata") &&
            strstr(d.message, "damaged or was edited") && strstr(d.message, "regenerate it"),
        "verify: no checksum line");
  sg_meta_format_unsealed(&m, text, sizeof text, &len, &d);
  text[30] = 'a'; /* lowercase */
  check(has(sg_meta_verify(text, len, &d), &d, SG_ERR_PARSE, "checksum is malformed"),
        "verify: a lowercase digit is malformed");
  check(has(sg_meta_seal(text, len, &d), &d, SG_ERR_PARSE, "checksum is malformed"),
        "seal: a malformed checksum line is not sealed");
  memcpy(again, raw, n);
  memcpy(strstr((char *)again + 64, "checksum ") + 9, "F", 1);
  check(has(sg_meta_verify(again, n, &d), &d, SG_ERR_PARSE,
            "code object's checksum does not match its bytes: the code object is damaged or "
            "was edited after softgen wrote it: regenerate it with softgen"),
        "verify: a changed checksum digit does not match");
  size_t nf = make_unsealed_object(&m, OBJ_FATBIN, again, sizeof again);
  check(has(sg_meta_verify(again, nf, &d), &d, SG_ERR_UNSUPPORTED, "fatbins are not loaded") &&
            has(sg_meta_seal(again, nf, &d), &d, SG_ERR_UNSUPPORTED, "fatbins"),
        "verify, seal: fatbins are refused");
  check(sg_meta_verify(NULL, 0, &d) == SG_ERR_INVALID_ARGUMENT &&
            sg_meta_seal(NULL, 0, &d) == SG_ERR_INVALID_ARGUMENT,
        "verify, seal: null object");

  /* the parser: line 2 only, 64 hex digits */
  static const char zeros[] = "0000000000000000000000000000000000000000000000000000000000000000";
  snprintf(text, sizeof text, "softgen-meta 1\nkernel k\nchecksum %s\nend\n", zeros);
  check(has(sg_meta_parse(text, strlen(text), &back, &d), &d, SG_ERR_PARSE,
            "metadata line 3: checksum must be the second line"),
        "parse: a checksum line elsewhere than line 2");
  snprintf(text, sizeof text, "softgen-meta 1\nchecksum %.63s\nend\n", zeros);
  check(has(sg_meta_parse(text, strlen(text), &back, &d), &d, SG_ERR_PARSE,
            "metadata line 2: checksum must be 64 hex digits 0-9 A-F"),
        "parse: a checksum of 63 digits");
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
