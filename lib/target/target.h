/* target/target.h - what each target is: its names, its device limits and the
 * capabilities of each arch, as plain data and predicates (internal; no LLVM).
 *
 * Needs: base. Produces: sgh_target, one table per target (target/nvptx.c,
 * target/amdgpu.c, target/host.c), looked up by name. Read by the planner
 * (plan/), which decides everything a kernel's shape depends on from these
 * numbers alone; the backends (backend/) add what it takes to build IR and code
 * objects for the same targets. Prefix: sgh_ (hardware). */
#ifndef SG_TARGET_TARGET_H
#define SG_TARGET_TARGET_H

typedef struct sgh_target {
  const char *name;         /* "nvptx" */
  const char *triple;       /* the LLVM triple: "nvptx64-nvidia-cuda" */
  const char *default_arch; /* "sm_90" */
  const char *const *archs; /* NULL-terminated list of accepted --arch values */
  const char *asm_ext;      /* ".ptx" */
  const char *object_ext;   /* ".cubin" */
  const char *shared_ext;   /* ".so" where the target links shared libraries, else NULL */

  /* Limits, checked by the planner. */
  unsigned max_block_threads;
  unsigned max_static_smem;      /* bytes of static shared memory a block may use */
  unsigned max_elems_per_thread; /* f32 row values a thread may hold in registers */
  unsigned max_threads_per_sm;   /* threads a multiprocessor (compute unit) holds */
  /* Widest vector access in bytes for arch (NULL: 16). */
  unsigned (*max_vector_bytes)(const char *arch);
  /* 1: a row longer than the register budget is processed in tiles, one pass
   * over memory per reduction plus one for the writes (plan->row_tiles > 1);
   * 0: such rows need clusters or are rejected. */
  int stream_long_rows;
  /* 1: rows whose N no full vector divides are still read in full vectors,
   * each row's columns shifted to its own alignment (plan->peel); 0: the
   * vector narrows until it divides N. */
  int peel_rows;
  /* 1: a row may be split over separate blocks of the grid that combine their
   * partials through global memory with device-scope atomics and wait for
   * each other there (a few-rows variant launched cooperatively, every block
   * resident; plan->grid_split); 0: no such variant (the host runs blocks in
   * turn). */
  int grid_split;
  /* The most blocks a multiprocessor holds, where the backend can ask its
   * register allocator to fit a number of them (NVPTX: .minnctapersm; plan->
   * blocks_per_sm); 0: it cannot (PipelineConstraint(blocks_per_sm) is
   * rejected). */
  unsigned max_blocks_per_sm;
  /* Called once, before the table is first used (NULL: nothing to do): the host
   * target reads its triple and this CPU's vector width here. */
  void (*probe)(void);
  /* 1 if arch supports waves of `size` threads. */
  int (*wave_ok)(const char *arch, unsigned size);
  /* A sentence naming the wave sizes arch allows, for rejections. */
  const char *(*wave_sizes)(const char *arch);

  /* Thread-block clusters: max_cluster is the largest cluster the target
   * launches portably (1: none), max_cluster_wide a larger, non-portable one
   * that staged rows, rows in registers over a cluster and the few-rows
   * variants may be given (16 on sm_90: the runtime opts the kernel in; the
   * plan's policy says where); cluster_ok says whether arch
   * has clusters at all. */
  unsigned max_cluster;
  unsigned max_cluster_wide;
  int (*cluster_ok)(const char *arch);

  /* Rows staged in shared memory through asynchronous copies (NULL: the target
   * cannot stage rows): the dynamic shared memory a block of arch may use. */
  unsigned (*stage_smem)(const char *arch);

  /* The listed arch whose code a device reporting device_arch runs: device_arch
   * itself when listed, else an older listed arch whose assembly the device's
   * driver compiles (NVPTX: PTX of the newest listed sm_XY at or below the
   * device's), else NULL. NULL function: listed archs only. */
  const char *(*arch_for_device)(const char *device_arch);
} sgh_target;

/* The table for a target name ("nvptx", "amdgpu", "host"), probed once per
 * process (thread-safe); NULL for an unknown name. */
const sgh_target *sgh_target_lookup(const char *name);

/* 1 if arch is in the target's list. */
int sgh_has_arch(const sgh_target *t, const char *arch);

/* 1 if blocks of arch can form clusters of more than one block. */
int sgh_has_clusters(const sgh_target *t, const char *arch);
/* The largest cluster t launches, portable or not (max_cluster_wide). */
unsigned sgh_largest_cluster(const sgh_target *t);

/* 1 if the target can stage rows in shared memory. */
int sgh_can_stage(const sgh_target *t);

extern const sgh_target sgh_nvptx;
extern const sgh_target sgh_amdgpu;
extern const sgh_target sgh_host; /* its triple and vector width: its probe */

#endif
