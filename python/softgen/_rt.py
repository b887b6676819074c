"""ctypes declarations of libsoftgen_rt (include/softgen/runtime.h, meta.h).

Needs: libsoftgen_rt.so, found by find_library (below): $SOFTGEN_RT_LIBRARY,
$SOFTGEN_LIB_DIR, bundled, the build tree, an installed prefix, the loader path.
Produces: `lib` (the loaded library with typed functions) and the Structures
mirroring sg_diag, sg_meta and sgrt_tensor; keep them in step with the headers.
"""
import ctypes
import glob
import os

SG_OK = 0
SG_ERR_INVALID_ARGUMENT = 1
SG_ERR_MISMATCH = 11
STATUS_NAMES = ["SG_OK", "SG_ERR_INVALID_ARGUMENT", "SG_ERR_PARSE", "SG_ERR_CONSTRAINT",
                "SG_ERR_CODEGEN", "SG_ERR_IO", "SG_ERR_TOOL", "SG_ERR_NO_MEMORY",
                "SG_ERR_UNSUPPORTED", "SG_ERR_NO_DRIVER", "SG_ERR_DRIVER", "SG_ERR_MISMATCH"]

DTYPE_F16, DTYPE_BF16, DTYPE_F32 = 0, 1, 2
DTYPE_NAMES = ["f16", "bf16", "f32"]
DTYPE_SIZES = [2, 2, 4]
ARG_TENSOR, ARG_ROWS, ARG_STRIDE, ARG_INNER, ARG_NSTRIDE, ARG_SCALAR, ARG_COLS = 0, 1, 2, 3, 4, 5, 6
LAYOUT_ROWS, LAYOUT_INNER = 0, 1
LAYOUT_NAMES = ["rows", "inner"]
BACKENDS = {"auto": 0, "cuda": 1, "hip": 2, "host": 3}


class Diag(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int), ("message", ctypes.c_char * 1024)]


class MetaTensor(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char * 64), ("is_output", ctypes.c_int),
                ("dtype", ctypes.c_int)]


class MetaArg(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("tensor", ctypes.c_int)]


class MetaScalar(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char * 64), ("is_i64", ctypes.c_int)]


class MetaVariant(ctypes.Structure):
    # sg_meta_variant: split and workspace are 0 for a "variant few" line, the grid-split
    # variant's blocks per row and workspace bytes per stream for a "variant grid" line
    _fields_ = [("kernel", ctypes.c_char * 128), ("block", ctypes.c_uint),
                ("rows_per_block", ctypes.c_uint), ("smem", ctypes.c_uint),
                ("cluster", ctypes.c_uint), ("dsmem", ctypes.c_uint),
                ("max_rows", ctypes.c_int64), ("split", ctypes.c_uint),
                ("workspace", ctypes.c_uint64)]


class Meta(ctypes.Structure):
    _fields_ = [("version", ctypes.c_int), ("kernel", ctypes.c_char * 128),
                ("template_name", ctypes.c_char * 64), ("target", ctypes.c_char * 16),
                ("arch", ctypes.c_char * 32), ("n", ctypes.c_int64), ("block", ctypes.c_uint),
                ("rows_per_block", ctypes.c_uint), ("smem", ctypes.c_uint),
                ("cluster", ctypes.c_uint), ("vector_bytes", ctypes.c_uint),
                ("persistent", ctypes.c_uint), ("dsmem", ctypes.c_uint),
                ("ntensors", ctypes.c_int), ("tensors", MetaTensor * 8),
                ("nargs", ctypes.c_int), ("args", MetaArg * 40),
                ("nscalars", ctypes.c_int), ("scalars", MetaScalar * 8), ("layout", ctypes.c_int),
                ("nvariants", ctypes.c_int), ("variants", MetaVariant * 4),
                ("n_min", ctypes.c_int64)]


class Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("rows", ctypes.c_int64), ("cols", ctypes.c_int64),
                ("row_stride", ctypes.c_int64), ("dtype", ctypes.c_int), ("inner", ctypes.c_int64),
                ("n_stride", ctypes.c_int64)]


def find_library(filename, env_var):
    """Path (or bare name for the loader) of one of softgen's shared libraries:
    $<env_var> (a full path), else $SOFTGEN_LIB_DIR/<filename>, else bundled in
    this package (softgen/_lib/), else the build tree (<repo>/build), else an
    installed prefix (<prefix>/share/softgen/python/softgen -> <prefix>/lib*/
    [softgen/]), else the loader's search path."""
    env = os.environ.get(env_var)
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    dirs = []
    if os.environ.get("SOFTGEN_LIB_DIR"):
        dirs.append(os.environ["SOFTGEN_LIB_DIR"])
    dirs += [os.path.join(here, "_lib"), os.path.join(here, "..", "..", "build")]
    prefix = os.path.join(here, "..", "..", "..", "..")
    for libdir in sorted(glob.glob(os.path.join(prefix, "lib*"))) + \
            sorted(glob.glob(os.path.join(prefix, "lib", "*-linux-gnu"))):
        dirs += [libdir, os.path.join(libdir, "softgen")]
    for d in dirs:
        path = os.path.join(d, filename)
        if os.path.exists(path):
            return os.path.normpath(path)
    return filename


def _declare(lib):
    P, S, I, V = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p
    D = ctypes.POINTER(Diag)
    sigs = {
        "sgrt_open": (I, [I, I, ctypes.POINTER(P), D]),
        "sgrt_close": (None, [P]),
        "sgrt_backend_name": (ctypes.c_char_p, [P]),
        "sgrt_device_arch": (ctypes.c_char_p, [P]),
        "sgrt_device_name": (ctypes.c_char_p, [P]),
        "sgrt_kernel_load_file": (I, [P, ctypes.c_char_p, ctypes.POINTER(P), D]),
        "sgrt_kernel_load_data": (I, [P, ctypes.c_char_p, S, ctypes.POINTER(P), D]),
        "sgrt_kernel_load_host": (I, [P, P, P, S, ctypes.POINTER(P), D]),
        "sgrt_host_set_threads": (I, [P, ctypes.c_uint, D]),
        "sgrt_kernel_meta": (ctypes.POINTER(Meta), [P]),
        "sgrt_kernel_launch": (I, [P, ctypes.POINTER(Tensor), I, V, D]),
        "sgrt_kernel_launch_ex": (I, [P, ctypes.POINTER(Tensor), I, ctypes.POINTER(ctypes.c_double),
                                      I, V, D]),
        "sgrt_kernel_launch_dense": (I, [P, ctypes.c_int64, V, D, V, V, V]),
        "sgrt_kernel_check_views": (I, [P, ctypes.POINTER(Tensor), I, D]),
        "sgrt_kernel_destroy": (None, [P]),
        "sgrt_synchronize": (I, [P, D]),
        "sg_meta_find": (I, [ctypes.c_char_p, S, ctypes.POINTER(Meta), D]),
    }
    for name, (res, args) in sigs.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args
    return lib


lib = _declare(ctypes.CDLL(find_library("libsoftgen_rt.so", "SOFTGEN_RT_LIBRARY")))
