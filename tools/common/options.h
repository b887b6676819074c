/* options.h - a command-line program's options declared once, in one table that
 * parses argv (opt_next), prints --help (opt_help) and the OPTIONS section of a man
 * page (opt_man). Needs: libc. Used by softgen, softgen-run and softgen-bench.
 *
 *   static const opt table[] = {
 *     OPT_SECTION("Output", NULL),
 *     {O_OUT, "-o", "FILE", 0, "write to FILE"},
 *     {O_VERBOSE, "-v, --verbose", NULL, 0, "say more"},
 *     {0},
 *   };
 *   opt_parser p = {.argc = argc, .argv = argv, .i = 1};
 *   for (int id; (id = opt_next(&p, table)) != OPT_END;)
 *     switch (id) { case O_OUT: out = p.val; break; ... }
 *
 * Accepted forms: --key value, --key=value, -k value, -kvalue; an option may be
 * repeated (the program decides what that means); "-" alone is an argument. */
#ifndef SOFTGEN_TOOLS_OPTIONS_H
#define SOFTGEN_TOOLS_OPTIONS_H

#include <stdio.h>

enum { OPT_HIDDEN = 1, /* parsed, but in neither --help nor the man page */
       OPT_LINES = 2 /* the man page keeps each line of the help (a list, an example) */ };

/* One row: an option, a section heading (id 0: names is the title, help a note
 * printed as "Title (note):"), or the end ({0}: names NULL). */
typedef struct opt {
  int id;            /* > 0: what opt_next returns for this option */
  const char *names; /* "-v, --verbose", "--dtype", "-D" */
  const char *arg;   /* the value's name in the help ("N=<int>"); NULL: takes no value */
  unsigned flags;    /* OPT_HIDDEN, OPT_LINES */
  const char *help;  /* its lines, separated by '\n', as --help prints them */
} opt;

#define OPT_SECTION(title, note) {0, title, NULL, 0, note}

/* What opt_next returns besides an option's id. */
enum { OPT_END = 0, OPT_ARG = -1, OPT_UNKNOWN = -2, OPT_NO_VALUE = -3, OPT_EXTRA_VALUE = -4 };

typedef struct opt_parser {
  int argc;
  char **argv;
  int i;           /* the next argument to read; start at 1 */
  const char *val; /* the option's value (NULL if it takes none), or the argument */
  char name[64];   /* the option as written, without "=value" (for messages) */
} opt_parser;

/* Reads the next argument of p (and the value of an option that takes one). Returns
 * the option's id; OPT_ARG (an argument, in p->val); OPT_UNKNOWN; OPT_NO_VALUE (an
 * option that needs a value is last); OPT_EXTRA_VALUE (--flag=value for an option
 * that takes none); OPT_END when no argument is left. */
int opt_next(opt_parser *p, const opt *table);

/* --help's option list: "Title:" lines, and "  names arg" with its help lines beside
 * it from column 26 (below it when the two do not fit). */
void opt_help(FILE *f, const opt *table);

/* The man page's OPTIONS: one .SS per section, one tagged paragraph per option. */
void opt_man(FILE *f, const opt *table);

/* A tagged paragraph (.TP, tag in bold, text) and plain text, escaped for roff; the
 * text's lines are filled into one paragraph unless flags has OPT_LINES. */
void opt_man_item(FILE *f, const char *tag, const char *text, unsigned flags);
void opt_man_text(FILE *f, const char *text, unsigned flags);

#endif
