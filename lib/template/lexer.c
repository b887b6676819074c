/* lexer.c - the shared lexical syntax of templates and constraints files
 * (template/lexer.h). Input is untrusted: every read is bounded by `end`. */
#include "template/lexer.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static void advance(sgl_lexer *lx) {
  if (*lx->p == '\n') {
    lx->line++;
    lx->col = 1;
  } else {
    lx->col++;
  }
  lx->p++;
}

void sgl_init(sgl_lexer *lx, const char *text, size_t len, const char *file, sg_diag *diag) {
  lx->file = file;
  lx->diag = diag;
  lx->p = text;
  lx->end = text + len;
  lx->line = 1;
  lx->col = 1;
  sgl_next(lx);
}

void sgl_next(sgl_lexer *lx) {
  sgl_token *t = &lx->tok;
  for (;;) {
    while (lx->p < lx->end && isspace((unsigned char)*lx->p))
      advance(lx);
    if (lx->p < lx->end && *lx->p == '#') {
      while (lx->p < lx->end && *lx->p != '\n')
        advance(lx);
      continue;
    }
    break;
  }
  memset(t, 0, sizeof *t);
  t->start = lx->p;
  t->line = lx->line;
  t->col = lx->col;
  if (lx->p >= lx->end) {
    t->kind = SGL_EOF;
    return;
  }
  unsigned char c = (unsigned char)*lx->p;
  if (isalpha(c) || c == '_') {
    t->kind = SGL_IDENT;
    while (lx->p < lx->end && (isalnum((unsigned char)*lx->p) || *lx->p == '_'))
      advance(lx);
  } else if (isdigit(c)) {
    t->kind = SGL_INT;
    while (lx->p < lx->end && isdigit((unsigned char)*lx->p)) {
      int d = *lx->p - '0';
      if (t->value > (INT64_MAX - d) / 10)
        t->overflow = 1;
      else
        t->value = t->value * 10 + d;
      advance(lx);
    }
    if (lx->p < lx->end && (isalpha((unsigned char)*lx->p) || *lx->p == '_')) {
      t->kind = SGL_ERROR; /* "12abc": the whole word is the bad token */
      while (lx->p < lx->end && (isalnum((unsigned char)*lx->p) || *lx->p == '_'))
        advance(lx);
    }
  } else if (strchr("()[]{},:=", c) && c != '\0') {
    t->kind = SGL_PUNCT;
    advance(lx);
  } else {
    t->kind = SGL_ERROR;
    advance(lx);
  }
  t->len = (size_t)(lx->p - t->start);
}

int sgl_is_punct(const sgl_lexer *lx, char c) {
  return lx->tok.kind == SGL_PUNCT && lx->tok.start[0] == c;
}

int sgl_is_ident(const sgl_lexer *lx, const char *word) {
  size_t n = strlen(word);
  return lx->tok.kind == SGL_IDENT && lx->tok.len == n && memcmp(lx->tok.start, word, n) == 0;
}

int sgl_text(const sgl_lexer *lx, char *dst, size_t cap) {
  if (lx->tok.len >= cap)
    return -1;
  memcpy(dst, lx->tok.start, lx->tok.len);
  dst[lx->tok.len] = '\0';
  return 0;
}

sg_status sgl_unexpected(const sgl_lexer *lx, const char *expected) {
  const sgl_token *tk = &lx->tok;
  if (tk->kind == SGL_EOF)
    return sg_diag_at(lx->diag, SG_ERR_PARSE, lx->file, tk->line, tk->col,
                      "expected %s, found end of file", expected);
  return sg_diag_at(lx->diag, SG_ERR_PARSE, lx->file, tk->line, tk->col,
                    "expected %s, found '%.*s'", expected, (int)(tk->len > 40 ? 40 : tk->len),
                    tk->start);
}

sg_status sgl_expect(sgl_lexer *lx, char c) {
  char what[4] = {'\'', c, '\'', 0};
  if (!sgl_is_punct(lx, c))
    return sgl_unexpected(lx, what);
  sgl_next(lx);
  return SG_OK;
}

sg_status sgl_expect_comma(sgl_lexer *lx, char close) {
  char what[16];
  snprintf(what, sizeof what, "',' or '%c'", close);
  if (!sgl_is_punct(lx, ','))
    return sgl_unexpected(lx, what);
  sgl_next(lx);
  return SG_OK;
}
