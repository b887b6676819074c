/* target.c - the target registry (target/target.h). Probing a target and
 * initializing its LLVM backend happen once per process, under one lock: the
 * Python binding compiles from several threads, and LLVM's target registry is
 * not safe to fill concurrently. */
#include <pthread.h>
#include <string.h>

#include "target/target.h"

static const sg_target_info *const targets[] = {&sg_target_nvptx, &sg_target_amdgpu,
                                                &sg_target_host};
enum { NTARGETS = sizeof targets / sizeof targets[0] };
static pthread_mutex_t once_mu = PTHREAD_MUTEX_INITIALIZER;
static int probed[NTARGETS], initialized[NTARGETS];

const sg_target_info *sg_target_lookup(const char *name) {
  for (size_t i = 0; i < NTARGETS; i++)
    if (name && strcmp(targets[i]->name, name) == 0) {
      pthread_mutex_lock(&once_mu);
      if (!probed[i] && targets[i]->probe)
        targets[i]->probe();
      probed[i] = 1;
      pthread_mutex_unlock(&once_mu);
      return targets[i];
    }
  return NULL;
}

void sg_target_initialize(const sg_target_info *t) {
  pthread_mutex_lock(&once_mu);
  for (size_t i = 0; i < NTARGETS; i++)
    if (targets[i] == t && !initialized[i]) {
      t->initialize();
      initialized[i] = 1;
    }
  pthread_mutex_unlock(&once_mu);
}

int sg_target_has_arch(const sg_target_info *t, const char *arch) {
  for (const char *const *a = t->archs; arch && *a; a++)
    if (strcmp(*a, arch) == 0)
      return 1;
  return 0;
}
