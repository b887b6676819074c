/* options.c - the option table of a command-line program (options.h): parses argv,
 * prints --help and the man page's OPTIONS. Needs: libc. */
#include "options.h"

#include <ctype.h>
#include <string.h>

enum { HELP_COL = 26 }; /* --help: the column of the help text */

/* The option of table named exactly by a[0..len) (one of its comma-separated names). */
static const opt *find(const opt *t, const char *a, size_t len) {
  for (; t->names; t++)
    for (const char *n = t->names; t->id && *n; n += strspn(n, ", ")) {
      size_t k = strcspn(n, ", ");
      if (k == len && strncmp(n, a, len) == 0)
        return t;
      n += k;
    }
  return NULL;
}

int opt_next(opt_parser *p, const opt *table) {
  if (p->i >= p->argc)
    return OPT_END;
  const char *a = p->argv[p->i++];
  p->val = a;
  snprintf(p->name, sizeof p->name, "%s", a);
  if (a[0] != '-' || !a[1])
    return OPT_ARG;
  size_t len = strlen(a);
  const char *val = NULL; /* given in the same argument: --key=value, -kvalue */
  if (a[1] == '-' && strchr(a, '=')) {
    len = (size_t)(strchr(a, '=') - a);
    val = a + len + 1;
    snprintf(p->name, sizeof p->name, "%.*s", (int)len, a);
  } else if (a[1] != '-' && a[2]) {
    len = 2;
    val = a + 2;
  }
  const opt *o = find(table, a, len);
  if (!o || (!o->arg && val && a[1] != '-')) /* -vx: not -v with a value */
    return OPT_UNKNOWN;
  if (a[1] != '-')
    snprintf(p->name, sizeof p->name, "%.2s", a);
  if (!o->arg) {
    p->val = NULL;
    return val ? OPT_EXTRA_VALUE : o->id;
  }
  if (!val && p->i >= p->argc)
    return OPT_NO_VALUE;
  p->val = val ? val : p->argv[p->i++];
  return o->id;
}

/* Prints text's lines; each but the first is indented to HELP_COL. */
static void help_lines(FILE *f, const char *text) {
  for (const char *s = text ? text : ""; ; s++) {
    size_t k = strcspn(s, "\n");
    fprintf(f, "%.*s\n", (int)k, s);
    s += k;
    if (!*s)
      return;
    fprintf(f, "%*s", HELP_COL, "");
  }
}

void opt_help(FILE *f, const opt *t) {
  for (; t->names; t++) {
    if (t->flags & OPT_HIDDEN)
      continue;
    if (!t->id) {
      if (t->help)
        fprintf(f, "%s (%s):\n", t->names, t->help);
      else
        fprintf(f, "%s:\n", t->names);
      continue;
    }
    int w = fprintf(f, "  %s%s%s", t->names, t->arg ? " " : "", t->arg ? t->arg : "");
    if (w + 2 > HELP_COL)
      fprintf(f, "\n%*s", HELP_COL, "");
    else
      fprintf(f, "%*s", HELP_COL - w, "");
    help_lines(f, t->help);
  }
}

/* s[0..n) for roff: \ and - escaped, a leading . or ' made literal. */
static void roff(FILE *f, const char *s, size_t n) {
  if (n && (*s == '.' || *s == '\''))
    fputs("\\&", f);
  for (size_t i = 0; i < n; i++)
    if (s[i] == '\\')
      fputs("\\e", f);
    else if (s[i] == '-')
      fputs("\\-", f);
    else
      fputc(s[i], f);
}

void opt_man_text(FILE *f, const char *text, unsigned flags) {
  for (const char *s = text ? text : ""; *s; s++) {
    size_t k = strcspn(s, "\n");
    roff(f, s, k);
    fputc('\n', f);
    s += k;
    if (!*s)
      return;
    if (flags & OPT_LINES)
      fputs(".br\n", f);
  }
}

void opt_man_item(FILE *f, const char *tag, const char *text, unsigned flags) {
  fputs(".TP\n\\fB", f);
  roff(f, tag, strlen(tag));
  fputs("\\fR\n", f);
  opt_man_text(f, text, flags);
}

void opt_man(FILE *f, const opt *t) {
  char buf[512];
  for (; t->names; t++) {
    if (t->flags & OPT_HIDDEN)
      continue;
    if (!t->id) { /* "Title (note):" becomes .SS Title and the note as a sentence */
      fputs(".SS ", f);
      roff(f, t->names, strlen(t->names));
      fputc('\n', f);
      if (t->help) {
        snprintf(buf, sizeof buf, "%c%s.", toupper((unsigned char)t->help[0]), t->help + 1);
        opt_man_text(f, buf, 0);
      }
      continue;
    }
    snprintf(buf, sizeof buf, "%s%s%s", t->names, t->arg ? " " : "", t->arg ? t->arg : "");
    opt_man_item(f, buf, t->help, t->flags);
  }
}
