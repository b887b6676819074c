"""ctypes declarations of libsoftgen.so, the compiler (include/softgen/compile.h).

Needs: libsoftgen.so (it links LLVM 22's libLLVM), found as _rt.find_library
finds libraries ($SOFTGEN_LIBRARY, $SOFTGEN_LIB_DIR, bundled, build tree,
installed prefix, loader path). Produces: `load()` -> the library with typed
functions (sg_compile; sg_compile_jit and sg_jit_* for the host target), or None with `load_error` saying why (a machine with the runtime but
no compiler can still run prebuilt kernels, see softgen.preload); the Structures
mirroring sg_compile_options and sg_compile_stats; keep them in step with the header.
"""
import ctypes

from . import _rt

OUTPUT_LLVM, OUTPUT_LLVM_OPT, OUTPUT_ASM, OUTPUT_OBJECT, OUTPUT_SHARED = 0, 1, 2, 3, 4
SG_ERR_TOOL = 6


class Source(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("text", ctypes.c_char_p), ("len", ctypes.c_size_t)]


class Problem(ctypes.Structure):
    _fields_ = [("n", ctypes.c_int64), ("dtype", ctypes.c_int), ("target", ctypes.c_char_p),
                ("arch", ctypes.c_char_p), ("out_dtype_set", ctypes.c_int),
                ("out_dtype", ctypes.c_int), ("layout", ctypes.c_int), ("n_min", ctypes.c_int64)]


class EmitOptions(ctypes.Structure):
    _fields_ = [("ptxas", ctypes.c_char_p), ("lld", ctypes.c_char_p)]


class CompileOptions(ctypes.Structure):
    _fields_ = [("template_src", Source), ("templates_dir", ctypes.c_char_p),
                ("constraints", ctypes.POINTER(Source)), ("nconstraints", ctypes.c_int),
                ("problem", Problem), ("outputs", ctypes.c_uint),
                ("optional_outputs", ctypes.c_uint), ("tools", EmitOptions),
                ("cache_dir", ctypes.c_char_p), ("no_cache", ctypes.c_int)]


class CompileStats(ctypes.Structure):
    _fields_ = [("ms_parse", ctypes.c_double), ("ms_resolve", ctypes.c_double),
                ("ms_ir", ctypes.c_double), ("ms_optimise", ctypes.c_double),
                ("ms_emit", ctypes.c_double), ("ms_assemble", ctypes.c_double),
                ("ms_cache", ctypes.c_double), ("cache_hits", ctypes.c_uint),
                ("cache_stores", ctypes.c_uint), ("cache_rejected", ctypes.c_uint),
                ("skipped", ctypes.c_uint), ("cache_dir", ctypes.c_char * 1024),
                ("warning", ctypes.c_char * 1024)]


class Buffer(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("size", ctypes.c_size_t)]


_lib = None
load_error = None


def load():
    """The compiler library, loaded on first use; None when it cannot be (load_error)."""
    global _lib, load_error
    if _lib is None and load_error is None:
        path = _rt.find_library("libsoftgen.so", "SOFTGEN_LIBRARY")
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            load_error = f"cannot load the compiler library {path}: {e}"
            return None
        P, D = ctypes.c_void_p, ctypes.POINTER(_rt.Diag)
        sigs = {
            "sg_compile_options_init": (None, [ctypes.POINTER(CompileOptions)]),
            "sg_compile": (ctypes.c_int, [ctypes.POINTER(CompileOptions), ctypes.POINTER(Buffer),
                                          ctypes.POINTER(CompileStats), D]),
            "sg_buffer_free": (None, [ctypes.POINTER(Buffer)]),
            "sg_compile_jit": (ctypes.c_int, [ctypes.POINTER(CompileOptions), ctypes.POINTER(P),
                                              ctypes.POINTER(CompileStats), D]),
            "sg_jit_kernel": (P, [P]),
            "sg_jit_meta": (ctypes.c_void_p, [P, ctypes.POINTER(ctypes.c_size_t)]),
            "sg_jit_destroy": (None, [P]),
            "sg_arch_for_device": (ctypes.c_char_p, [ctypes.c_char_p, ctypes.c_char_p]),
            "sg_version": (ctypes.c_char_p, []),
            "sg_llvm_version": (ctypes.c_char_p, []),
        }
        for name, (res, args) in sigs.items():
            fn = getattr(lib, name)
            fn.restype = res
            fn.argtypes = args
        _lib = lib
    return _lib
