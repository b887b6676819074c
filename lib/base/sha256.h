/* base/sha256.h - SHA-256 (FIPS 180-4) of byte strings (internal).
 * Used to key the compile cache and to check its entries. */
#ifndef SG_INTERNAL_SHA256_H
#define SG_INTERNAL_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct sgb_sha256 {
  uint32_t h[8];
  uint64_t bytes;      /* message length so far */
  unsigned char buf[64];
  size_t fill;         /* bytes in buf */
} sgb_sha256;

void sgb_sha256_init(sgb_sha256 *s);
void sgb_sha256_update(sgb_sha256 *s, const void *data, size_t len);
/* Writes the 32-byte digest; s must be re-initialised before reuse. */
void sgb_sha256_final(sgb_sha256 *s, unsigned char digest[32]);
/* digest of data in one call */
void sgb_sha256_of(const void *data, size_t len, unsigned char digest[32]);

#endif
