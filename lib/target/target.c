/* target.c - the target registry and the capability predicates (target/target.h).
 * Probing a target happens once per process, under a lock: the Python binding
 * compiles from several threads. */
#include "target/target.h"

#include <pthread.h>
#include <string.h>

static const sgh_target *const targets[] = {&sgh_nvptx, &sgh_amdgpu, &sgh_host};
enum { NTARGETS = sizeof targets / sizeof targets[0] };
static pthread_mutex_t probe_mu = PTHREAD_MUTEX_INITIALIZER;
static int probed[NTARGETS];

const sgh_target *sgh_target_lookup(const char *name) {
  for (size_t i = 0; i < NTARGETS; i++)
    if (name && strcmp(targets[i]->name, name) == 0) {
      pthread_mutex_lock(&probe_mu);
      if (!probed[i] && targets[i]->probe)
        targets[i]->probe();
      probed[i] = 1;
      pthread_mutex_unlock(&probe_mu);
      return targets[i];
    }
  return NULL;
}

int sgh_has_arch(const sgh_target *t, const char *arch) {
  for (const char *const *a = t->archs; arch && *a; a++)
    if (strcmp(*a, arch) == 0)
      return 1;
  return 0;
}

int sgh_has_clusters(const sgh_target *t, const char *arch) {
  return t->max_cluster > 1 && t->cluster_ok && t->cluster_ok(arch);
}

unsigned sgh_largest_cluster(const sgh_target *t) {
  return t->max_cluster_wide > t->max_cluster ? t->max_cluster_wide : t->max_cluster;
}

int sgh_can_stage(const sgh_target *t) { return t->stage_smem != NULL; }
