// latency.cu - the latency floor of one-wave softmax-like launches (issue 21,
// session 30; tools/bench/RESULTS.md, "The cluster exchange through transaction
// barriers"). GPU machine, CUDA runtime, built against the runtime-only build:
//
//   cmake -S . -B /tmp/sgrt -DSOFTGEN_RUNTIME_ONLY=ON && cmake --build /tmp/sgrt -j16
//   nvcc -O3 -std=c++17 -arch=sm_90a --use_fast_math tools/bench/latency.cu -Iinclude \
//        -L/tmp/sgrt -lsoftgen_rt -Xlinker -rpath=/tmp/sgrt -o /tmp/latency
//   /tmp/latency [--no-floors] [KERNEL.cubin:M ...]
//
// Every figure is per launch: a CUDA graph of 256 launches rotated over
// min(128, 240 MB / set) buffer sets (sweep.py's rotation), the median of 3 x 20
// replays, each round after a 256 MB copy. Printed: empty kernels (clusters or
// not); a memcpy node (the copy's graph); one f16 row over C blocks of 256 threads
// built up step by step (load + store, a block reduction, a cluster launch, the
// partials through distributed shared memory and the cluster barrier, the exps);
// softgen's gather stage with the cluster barrier (its blocks also meet at a last
// cluster barrier before they leave) against st.async and transaction barriers;
// then each softgen kernel given (sgrt_kernel_launch_dense) beside the memcpy
// node of its bytes.
#include <algorithm>
#include <cmath>
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <functional>
#include <string>
#include <vector>
extern "C" {
#include "softgen/runtime.h"
}
namespace cg = cooperative_groups;

#define CK(x)                                                                                      \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));           \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

enum { RED = 1, CLU = 2, EXCH = 4, EXP = 8, HOLD = 16 };

__global__ void empty_k() {}

__device__ __forceinline__ float hmax8(uint4 v) {
  const __half2 *h = reinterpret_cast<const __half2 *>(&v);
  float m = -INFINITY;
#pragma unroll
  for (int i = 0; i < 4; i++) {
    float2 f = __half22float2(h[i]);
    m = fmaxf(m, fmaxf(f.x, f.y));
  }
  return m;
}
__device__ __forceinline__ float hsumexp8(uint4 v, float mb) { // sum 2^(x*l2e - mb)
  const __half2 *h = reinterpret_cast<const __half2 *>(&v);
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < 4; i++) {
    float2 f = __half22float2(h[i]);
    s += exp2f(fmaf(f.x, 1.4426950f, -mb)) + exp2f(fmaf(f.y, 1.4426950f, -mb));
  }
  return s;
}
__device__ __forceinline__ uint4 hexp8(uint4 v, float mb) {
  __half2 *h = reinterpret_cast<__half2 *>(&v);
#pragma unroll
  for (int i = 0; i < 4; i++) {
    float2 f = __half22float2(h[i]);
    h[i] = __floats2half2_rn(exp2f(fmaf(f.x, 1.4426950f, -mb)), exp2f(fmaf(f.y, 1.4426950f, -mb)));
  }
  return v;
}

// Block blockIdx.x % C's share of row blockIdx.x / C: its vector count `lim`, its
// first vector `base`, and the thread's V vectors of it (-inf past the share).
template <int V>
__device__ __forceinline__ void load_share(const uint4 *__restrict__ in, int nvec, int C, int &rank,
                                           int &lim, long &base, uint4 (&v)[V]) {
  rank = blockIdx.x % C;
  const int row = blockIdx.x / C, share = (nvec + C - 1) / C;
  lim = min(share, nvec - rank * share);
  base = (long)row * nvec + (long)rank * share;
#pragma unroll
  for (int j = 0; j < V; j++) {
    int i = threadIdx.x + j * blockDim.x;
    v[j] = i < lim ? in[base + i] : make_uint4(0xfc00fc00u, 0xfc00fc00u, 0xfc00fc00u, 0xfc00fc00u);
  }
}

// The thread's max over its V vectors and (EXPS) its sum of exp(x - max), then the
// wave's pair by butterfly (the sum 1 without EXPS).
template <int V, bool EXPS>
__device__ __forceinline__ void wave_pair(const uint4 (&v)[V], float &m, float &s) {
  m = -INFINITY, s = EXPS ? 0.f : 1.f;
#pragma unroll
  for (int j = 0; j < V; j++)
    m = fmaxf(m, hmax8(v[j]));
  if (EXPS) {
#pragma unroll
    for (int j = 0; j < V; j++)
      s += hsumexp8(v[j], m * 1.4426950f);
  }
#pragma unroll
  for (int o = 16; o; o >>= 1) {
    float mo = __shfl_xor_sync(~0u, m, o), so = __shfl_xor_sync(~0u, s, o);
    float mn = fmaxf(m, mo);
    s = EXPS ? s * exp2f((m - mn) * 1.4426950f) + so * exp2f((mo - mn) * 1.4426950f) : s;
    m = mn;
  }
}

// One row of nvec 16-byte vectors over C blocks (block b: row b / C, rank b % C);
// each thread V vectors. MODE bits: RED block reduction, CLU launched in clusters
// of C with softgen's start arrive, EXCH partials through DSMEM + cluster barrier,
// EXP two exps an element (online pass, then the writes).
template <int V, int MODE>
__global__ void __launch_bounds__(256)
    rowk(const uint4 *__restrict__ in, uint4 *__restrict__ out, int nvec, int C) {
  __shared__ float part[2][8];
  __shared__ float cpart[2][16];
  if (MODE & CLU)
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  int rank, lim;
  long base;
  uint4 v[V];
  load_share<V>(in, nvec, C, rank, lim, base, v);
  float m = 0.f, s = 1.f;
  if (MODE & RED) {
    wave_pair<V, (MODE & EXP) != 0>(v, m, s);
    const int w = threadIdx.x / 32, nw = blockDim.x / 32;
    if ((threadIdx.x & 31) == 0)
      part[0][w] = m, part[1][w] = s;
    __syncthreads();
    float mm = -INFINITY, ss = 0.f;
    for (int k = 0; k < nw; k++)
      mm = fmaxf(mm, part[0][k]);
    for (int k = 0; k < nw; k++)
      ss += part[1][k] * ((MODE & EXP) ? exp2f((part[0][k] - mm) * 1.4426950f) : 1.f);
    m = mm, s = ss;
    if (MODE & EXCH) {
      asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
      cg::cluster_group cl = cg::this_cluster();
      if ((int)threadIdx.x < C) {
        float *d0 = cl.map_shared_rank(&cpart[0][0], threadIdx.x);
        float *d1 = cl.map_shared_rank(&cpart[1][0], threadIdx.x);
        d0[rank] = m, d1[rank] = s;
      }
      asm volatile("barrier.cluster.arrive.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
      mm = -INFINITY, ss = 0.f;
      for (int k = 0; k < C; k++)
        mm = fmaxf(mm, cpart[0][k]);
      for (int k = 0; k < C; k++)
        ss += cpart[1][k] * ((MODE & EXP) ? exp2f((cpart[0][k] - mm) * 1.4426950f) : 1.f);
      m = mm, s = ss;
    }
  }
  if ((MODE & CLU) && !(MODE & EXCH))
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
  const float mb = m * 1.4426950f + log2f(s);
#pragma unroll
  for (int j = 0; j < V; j++) {
    int i = threadIdx.x + j * blockDim.x;
    if (i < lim) {
      uint4 w = v[j];
      if (MODE & EXP)
        w = hexp8(w, mb);
      else
        w.x ^= (__float_as_uint(mb) == 0x7fc00001u);
      out[base + i] = w;
    }
  }
}

struct Sets {
  std::vector<void *> in, out;
  size_t bytes = 0;
};
static Sets make_sets(size_t bytes) {
  Sets s;
  s.bytes = bytes;
  size_t n = std::min<size_t>(128, (size_t)std::ceil(240e6 / (2.0 * bytes)));
  for (size_t i = 0; i < n; i++) {
    void *a, *b;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    CK(cudaMemset(a, 0x3c, bytes)); // f16 1.0
    CK(cudaMemset(b, 0, bytes));
    s.in.push_back(a), s.out.push_back(b);
  }
  return s;
}
static void free_sets(Sets &s) {
  for (auto p : s.in)
    cudaFree(p);
  for (auto p : s.out)
    cudaFree(p);
}

static cudaStream_t stream;
static void *filler_a, *filler_b;
static const size_t FILLER = 256u << 20;

// per-launch us of a graph of L launches over the sets: median over R replays, 3 rounds
static double time_graph(const std::function<void(int)> &op, int nsets, int L = 256, int R = 20) {
  for (int j = 0; j < 2; j++)
    op(j % nsets);
  CK(cudaStreamSynchronize(stream));
  cudaGraph_t g;
  cudaGraphExec_t ge;
  CK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  for (int j = 0; j < L; j++)
    op(j % nsets);
  CK(cudaStreamEndCapture(stream, &g));
  CK(cudaGraphInstantiate(&ge, g, 0));
  CK(cudaGraphLaunch(ge, stream));
  CK(cudaStreamSynchronize(stream));
  std::vector<double> t;
  cudaEvent_t ev[64];
  for (int i = 0; i <= R; i++)
    CK(cudaEventCreate(&ev[i]));
  for (int round = 0; round < 3; round++) {
    CK(cudaMemcpyAsync(filler_b, filler_a, FILLER, cudaMemcpyDeviceToDevice, stream));
    CK(cudaEventRecord(ev[0], stream));
    for (int r = 0; r < R; r++) {
      CK(cudaGraphLaunch(ge, stream));
      CK(cudaEventRecord(ev[r + 1], stream));
    }
    CK(cudaStreamSynchronize(stream));
    for (int r = 0; r < R; r++) {
      float ms;
      CK(cudaEventElapsedTime(&ms, ev[r], ev[r + 1]));
      t.push_back(ms * 1e3 / L);
    }
  }
  for (int i = 0; i <= R; i++)
    cudaEventDestroy(ev[i]);
  CK(cudaGraphExecDestroy(ge));
  CK(cudaGraphDestroy(g));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// The launch of `blocks` blocks of 256 threads on the timed stream, in clusters of C
// (C > 1); used in place (cfg points at its own attribute).
struct Launch {
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute at[1];
  Launch(int blocks, int C) {
    cfg.gridDim = dim3(blocks);
    cfg.blockDim = dim3(256);
    cfg.stream = stream;
    if (C > 1) {
      at[0].id = cudaLaunchAttributeClusterDimension;
      at[0].val.clusterDim.x = C, at[0].val.clusterDim.y = 1, at[0].val.clusterDim.z = 1;
      cfg.attrs = at, cfg.numAttrs = 1;
    }
  }
};

template <int V, int MODE>
static void launch_row(const Sets &s, int set, int rows, int nvec, int C) {
  Launch l(rows * C, (MODE & CLU) ? C : 1);
  CK(cudaLaunchKernelEx(&l.cfg, rowk<V, MODE>, (const uint4 *)s.in[set], (uint4 *)s.out[set], nvec,
                        C));
}

template <int V, int MODE> static void row_case(const char *name, int rows, int n, int C) {
  CK(cudaFuncSetAttribute(rowk<V, MODE>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  int nvec = n / 8;
  int per = (nvec + C - 1) / C;
  if (per > 256 * V) {
    printf("%-34s skipped: V too small\n", name);
    return;
  }
  Sets s = make_sets((size_t)rows * n * 2);
  double us = time_graph([&](int i) { launch_row<V, MODE>(s, i, rows, nvec, C); }, s.in.size());
  printf("%-34s M=%d N=%d C=%d V=%d mode=%2d  %.3f us\n", name, rows, n, C, V, MODE, us);
  free_sets(s);
}

static void copy_case(int rows, int n, int elt) {
  Sets s = make_sets((size_t)rows * n * elt);
  double us = time_graph(
      [&](int i) {
        CK(cudaMemcpyAsync(s.out[i], s.in[i], s.bytes, cudaMemcpyDeviceToDevice, stream));
      },
      s.in.size());
  printf("%-34s M=%d N=%d  %.3f us\n", "copy (memcpy node)", rows, n, us);
  free_sets(s);
}

// One row of n over C blocks built up step by step, after the memcpy node of its bytes.
template <int V> static void build_up(int n, int C) {
  char name[64];
  auto at = [&](const char *step) {
    snprintf(name, sizeof name, "%d/%d %s", n, C, step);
    return name;
  };
  copy_case(1, n, 2);
  row_case<V, 0>(at("load+store"), 1, n, C);
  row_case<V, RED>(at("+block reduce"), 1, n, C);
  row_case<V, RED | CLU>(at("+cluster launch"), 1, n, C);
  row_case<V, RED | CLU | EXCH>(at("+cluster exchange"), 1, n, C);
  row_case<V, RED | CLU | EXCH | EXP>(at("+exps"), 1, n, C);
}

static void empty_case(int blocks, int C) {
  CK(cudaFuncSetAttribute(empty_k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  double us = time_graph(
      [&](int) {
        Launch l(blocks, C);
        CK(cudaLaunchKernelEx(&l.cfg, empty_k));
      },
      1);
  printf("%-34s blocks=%d C=%d  %.3f us\n", "empty kernel", blocks, C, us);
}

// softgen's gather stage: each warp's (max, sum) pair goes from lane r < C into
// block r's slot [rank * W + warp]; then every warp reads the C * W pairs with its
// lanes in parallel and reduces them by butterfly. MB = 0: st.shared::cluster +
// barrier.cluster arrive / wait; MB = 1: st.async with complete_tx on the
// receiver's mbarrier, the receiver waits on its own mbarrier.
template <int V, int MB>
__global__ void __launch_bounds__(256)
    gatherk(const uint4 *__restrict__ in, uint4 *__restrict__ out, int nvec, int C) {
  __shared__ __align__(16) float2 slots[16 * 8];
  __shared__ __align__(8) unsigned long long mbar;
  const int W = blockDim.x / 32, w = threadIdx.x / 32, lane = threadIdx.x & 31;
  if (MB) {
    if (threadIdx.x == 0) {
      unsigned a = (unsigned)__cvta_generic_to_shared(&mbar);
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(a));
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
      unsigned long long st;
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], %2;"
                   : "=l"(st)
                   : "r"(a), "r"(C * W * 8)
                   : "memory");
    }
  }
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  int rank, lim;
  long base;
  uint4 v[V];
  load_share<V>(in, nvec, C, rank, lim, base, v);
  float m, s;
  wave_pair<V, true>(v, m, s);
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
  if (lane < C) {
    unsigned la = (unsigned)__cvta_generic_to_shared(&slots[rank * W + w]), ra;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(ra) : "r"(la), "r"(lane));
    if (MB) {
      unsigned lb = (unsigned)__cvta_generic_to_shared(&mbar), rb;
      asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rb) : "r"(lb), "r"(lane));
      asm volatile(
          "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [%0], {%1, %2}, [%3];" ::
              "r"(ra),
          "f"(m), "f"(s), "r"(rb)
          : "memory");
    } else {
      asm volatile("st.shared::cluster.v2.f32 [%0], {%1, %2};" ::"r"(ra), "f"(m), "f"(s)
                   : "memory");
    }
  }
  if (MB) {
    unsigned a = (unsigned)__cvta_generic_to_shared(&mbar);
    asm volatile("{\n\t.reg .pred p;\n"
                 "W_%=:\n\tmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], 0;\n"
                 "\t@!p bra W_%=;\n}" ::"r"(a)
                 : "memory");
  } else {
    asm volatile("barrier.cluster.arrive.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
  }
  const int n = C * W;
  float mm = -INFINITY, ss = 0.f;
  for (int k = lane; k < n; k += 32) {
    float2 p = slots[k];
    float mn = fmaxf(mm, p.x);
    ss = ss * exp2f((mm - mn) * 1.4426950f) + p.y * exp2f((p.x - mn) * 1.4426950f);
    mm = mn;
  }
#pragma unroll
  for (int o = 16; o; o >>= 1) {
    float mo = __shfl_xor_sync(~0u, mm, o), so = __shfl_xor_sync(~0u, ss, o);
    float mn = fmaxf(mm, mo);
    ss = (mm == -INFINITY ? 0.f : ss * exp2f((mm - mn) * 1.4426950f)) +
         (mo == -INFINITY ? 0.f : so * exp2f((mo - mn) * 1.4426950f));
    mm = mn;
  }
  const float mb = mm * 1.4426950f + log2f(ss);
#pragma unroll
  for (int j = 0; j < V; j++) {
    int i = threadIdx.x + j * blockDim.x;
    if (i < lim)
      out[base + i] = hexp8(v[j], mb);
  }
  if (!MB)
    asm volatile("barrier.cluster.arrive.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
}

template <int V, int MB> static void gather_case(const char *name, int rows, int n, int C) {
  CK(cudaFuncSetAttribute(gatherk<V, MB>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  int nvec = n / 8;
  Sets s = make_sets((size_t)rows * n * 2);
  double us = time_graph(
      [&](int i) {
        Launch l(rows * C, C);
        CK(cudaLaunchKernelEx(&l.cfg, gatherk<V, MB>, (const uint4 *)s.in[i], (uint4 *)s.out[i],
                              nvec, C));
      },
      s.in.size());
  // check: row sums of the first set's output
  std::vector<__half> h((size_t)rows * n);
  CK(cudaMemcpy(h.data(), s.out[0], h.size() * 2, cudaMemcpyDeviceToHost));
  double sum = 0;
  for (int j = 0; j < n; j++)
    sum += __half2float(h[j]);
  printf("%-34s M=%d N=%d C=%d V=%d  %.3f us  (row 0 sum %.4f)\n", name, rows, n, C, V, us, sum);
  free_sets(s);
}

static void softgen_case(sgrt_runtime *rt, const char *arg) {
  std::string a(arg);
  size_t c = a.rfind(':');
  std::string path = a.substr(0, c);
  long rows = atol(a.c_str() + c + 1);
  sg_diag d;
  memset(&d, 0, sizeof d);
  sgrt_kernel *k;
  if (sgrt_kernel_load_file(rt, path.c_str(), &k, &d)) {
    printf("%s: load failed\n", arg);
    return;
  }
  const sg_meta *m = sgrt_kernel_meta(k);
  size_t elt = sg_dtype_size(m->tensors[0].dtype);
  size_t bytes = (size_t)rows * m->n * elt;
  Sets s = make_sets(bytes);
  if (elt == 4)
    for (auto p : s.in)
      CK(cudaMemset(p, 0, bytes));
  double us = time_graph(
      [&](int i) {
        sg_diag dd;
        if (sgrt_kernel_launch_dense(k, rows, stream, &dd, s.in[i], s.out[i], NULL)) {
          fprintf(stderr, "launch failed: %s\n", arg);
          exit(1);
        }
      },
      s.in.size());
  sgrt_geometry geo;
  sgrt_kernel_geometry(k, rows, &geo, &d);
  printf("%-34s M=%ld N=%ld  %.3f us\n", path.substr(path.rfind('/') + 1).c_str(), rows, (long)m->n,
         us);
  free_sets(s);
  copy_case(rows, m->n, elt);
  sgrt_kernel_destroy(k);
}

int main(int argc, char **argv) {
  CK(cudaSetDevice(0));
  CK(cudaFree(0));
  CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CK(cudaMalloc(&filler_a, FILLER));
  CK(cudaMalloc(&filler_b, FILLER));
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  printf("%s, %d SMs\n", p.name, p.multiProcessorCount);
  bool floors = argc < 2 || strcmp(argv[1], "--no-floors");
  if (floors) {
    for (int rep = 0; rep < 2; rep++) {
      gather_case<2, 0>("32000/8 gather, cluster barrier", 1, 32000, 8);
      gather_case<2, 1>("32000/8 gather, mbarrier", 1, 32000, 8);
      gather_case<4, 0>("128256/16 gather, cluster barrier", 1, 128256, 16);
      gather_case<4, 1>("128256/16 gather, mbarrier", 1, 128256, 16);
      gather_case<4, 0>("128256/16 gather, cluster barrier", 8, 128256, 16);
      gather_case<4, 1>("128256/16 gather, mbarrier", 8, 128256, 16);
      gather_case<8, 0>("128256/8 gather, cluster barrier", 64, 128256, 8);
      gather_case<8, 1>("128256/8 gather, mbarrier", 64, 128256, 8);
      gather_case<1, 0>("8192/4 gather, cluster barrier", 1, 8192, 4);
      gather_case<1, 1>("8192/4 gather, mbarrier", 1, 8192, 4);
    }
    empty_case(1, 1);
    empty_case(8, 1);
    empty_case(8, 8);
    empty_case(16, 16);
    empty_case(132, 1);
    empty_case(128, 8);
    // one f16 row of 4096 in one block; of 32000 over 8; of 128256 over 16
    copy_case(1, 4096, 2);
    row_case<2, 0>("4096/1 load+store", 1, 4096, 1);
    row_case<2, RED>("4096/1 +block reduce", 1, 4096, 1);
    row_case<2, RED | EXP>("4096/1 +exps", 1, 4096, 1);
    build_up<2>(32000, 8);
    row_case<4, RED | CLU | EXCH | EXP>("32000/4 +exps", 1, 32000, 4);
    row_case<1, RED | CLU | EXCH | EXP>("32000/16 +exps", 1, 32000, 16);
    build_up<4>(128256, 16);
    row_case<8, RED | CLU | EXCH | EXP>("128256/8 +exps", 1, 128256, 8);
    copy_case(8, 128256, 2);
    row_case<4, 0>("128256/16 load+store", 8, 128256, 16);
    row_case<4, RED | CLU | EXCH | EXP>("128256/16 +exps", 8, 128256, 16);
    row_case<8, 0>("128256/8 load+store", 8, 128256, 8);
    row_case<8, RED | CLU | EXCH | EXP>("128256/8 +exps", 8, 128256, 8);
    copy_case(64, 128256, 2);
    row_case<8, 0>("128256/8 load+store", 64, 128256, 8);
    row_case<8, RED | CLU | EXCH | EXP>("128256/8 +exps", 64, 128256, 8);
  }
  sgrt_runtime *rt = NULL;
  sg_diag d;
  memset(&d, 0, sizeof d);
  if (sgrt_open(SGRT_BACKEND_CUDA, 0, &rt, &d)) {
    printf("sgrt_open failed\n");
    return 1;
  }
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--no-floors"))
      softgen_case(rt, argv[i]);
  sgrt_close(rt);
  return 0;
}
