/* backend.c - the backend of each target, set up once (backend/backend.h).
 * Initializing an LLVM backend happens once per process, under a lock: the
 * Python binding compiles from several threads, and LLVM's target registry is
 * not safe to fill concurrently. */
#include "backend/backend.h"

#include <pthread.h>

static const sge_backend *const backends[] = {&sge_nvptx, &sge_amdgpu, &sge_host};
enum { NBACKENDS = sizeof backends / sizeof backends[0] };
static pthread_mutex_t init_mu = PTHREAD_MUTEX_INITIALIZER;
static int initialized[NBACKENDS];

const sge_backend *sge_backend_for(const sgh_target *t) {
  for (size_t i = 0; i < NBACKENDS; i++)
    if (backends[i]->target == t) {
      pthread_mutex_lock(&init_mu);
      if (!initialized[i])
        backends[i]->initialize();
      initialized[i] = 1;
      pthread_mutex_unlock(&init_mu);
      return backends[i];
    }
  return NULL;
}
