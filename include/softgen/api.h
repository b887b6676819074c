/* softgen/api.h - export marker for softgen's public C functions.
 *
 * Libraries are built with hidden visibility by default; every public
 * declaration carries SG_API so that it is exported from libsoftgen_rt.so (and
 * any other shared build). Define SG_API before including a softgen header to
 * override it (e.g. empty, to link the sources privately into another .so). */
#ifndef SOFTGEN_API_H
#define SOFTGEN_API_H

#ifndef SG_API
#if defined(__GNUC__) || defined(__clang__)
#define SG_API __attribute__((visibility("default")))
#else
#define SG_API
#endif
#endif

#endif
