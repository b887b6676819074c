/* meta/locate.h - where a code object's metadata text lies (internal to
 * lib/meta: meta.c finds it, seal.c checksums it). libc only. */
#ifndef SG_INTERNAL_META_LOCATE_H
#define SG_INTERNAL_META_LOCATE_H

#include <stddef.h>

/* The metadata of a code object: raw text (ELF objects hold the initializer
 * verbatim; the first "softgen-meta 1\n" in the bytes) or, in PTX, decoded from
 * the byte-list initializer of the first global SG_META_SYMBOL. */
typedef struct sgmd_text {
  const char *text; /* the text: inside the object, or owned */
  size_t len;       /* bytes of text available (to the object's end, or decoded) */
  char *owned;      /* PTX: the decoded text (malloc'd, NUL-terminated); free it */
  int ptx;          /* 1: decoded from a PTX byte list */
  size_t at;        /* raw: offset of text in the object */
  size_t body;      /* PTX: offset of the list's body in the object (after '{') */
} sgmd_text;

/* Finds the metadata of object (size bytes) into *t. 1 when found, 0 when
 * there is none (or the decoded text could not be allocated). */
int sgmd_locate(const void *object, size_t size, sgmd_text *t);

/* PTX: the offsets in object of the first digit of list entries first ..
 * first + n - 1 (entry i is byte i of the decoded text) into at[]. 0 when all
 * exist, -1 otherwise (or when t is raw text). */
int sgmd_ptx_entries(const void *object, size_t size, const sgmd_text *t, size_t first, size_t n,
                    size_t *at);

#endif
