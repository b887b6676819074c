/* template/lexer.h - tokens of the template language and of constraints files
 * (both share one lexical syntax: identifiers, integers, punctuation, '#'
 * comments). Produced by lexer.c; read by template/parse.c and
 * plan/constraints.c. */
#ifndef SG_INTERNAL_LEXER_H
#define SG_INTERNAL_LEXER_H

#include <stddef.h>
#include <stdint.h>

#include "softgen/diag.h"

typedef enum sgl_kind {
  SGL_EOF,
  SGL_IDENT,
  SGL_INT,
  SGL_PUNCT, /* one of ( ) [ ] { } , : = */
  SGL_ERROR  /* a character that starts no token */
} sgl_kind;

typedef struct sgl_token {
  sgl_kind kind;
  const char *start;
  size_t len;
  int64_t value; /* SGL_INT, saturated at INT64_MAX (flag: overflow) */
  int overflow;
  int line, col;
} sgl_token;

typedef struct sgl_lexer {
  const char *p, *end;
  int line, col;
  sgl_token tok;    /* the current token */
  const char *file; /* for errors: "file:line:col: ..." */
  sg_diag *diag;
} sgl_lexer;

/* Starts lexing text[0..len) of `file` and reads the first token; errors go
 * to diag (may be NULL). */
void sgl_init(sgl_lexer *lx, const char *text, size_t len, const char *file, sg_diag *diag);
/* Advances to the next token. */
void sgl_next(sgl_lexer *lx);
/* 1 when the current token is punctuation c. */
int sgl_is_punct(const sgl_lexer *lx, char c);
/* 1 when the current token is the identifier word. */
int sgl_is_ident(const sgl_lexer *lx, const char *word);
/* Copies the current token's text into dst (capacity cap); 0, or -1 if too long. */
int sgl_text(const sgl_lexer *lx, char *dst, size_t cap);

/* Errors at the current token, shared by both parsers: "expected X, found
 * 'tok'" (SG_ERR_PARSE); the punctuation c, else that error; ',' in a list
 * that `close` ends, else that error. Each advances past what it expected. */
sg_status sgl_unexpected(const sgl_lexer *lx, const char *expected);
sg_status sgl_expect(sgl_lexer *lx, char c);
sg_status sgl_expect_comma(sgl_lexer *lx, char close);

#endif
