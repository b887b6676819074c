/* target.c - the target registry (target/target.h). */
#include <string.h>

#include "target/target.h"

static const sg_target_info *const targets[] = {&sg_target_nvptx, &sg_target_amdgpu,
                                                &sg_target_host};

const sg_target_info *sg_target_lookup(const char *name) {
  for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
    if (name && strcmp(targets[i]->name, name) == 0) {
      if (targets[i]->probe)
        targets[i]->probe();
      return targets[i];
    }
  return NULL;
}

int sg_target_has_arch(const sg_target_info *t, const char *arch) {
  for (const char *const *a = t->archs; arch && *a; a++)
    if (strcmp(*a, arch) == 0)
      return 1;
  return 0;
}
