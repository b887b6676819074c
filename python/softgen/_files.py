"""Reading and writing code object files as the C tools do (lib/base/io.h).

Needs: os, stat, tempfile. Produces: read_object (a regular file of at most
OBJECT_LIMIT bytes, opened without blocking, so a FIFO or a device is refused
with an Error naming it instead of blocking or growing without bound) and
write_atomic (a temporary file beside the destination, renamed over it when
complete: a failure leaves the old file as it was; a device or FIFO is written
in place; a symlink keeps pointing at the file it names, which is replaced).
"""
import os
import stat
import tempfile

OBJECT_LIMIT = 256 << 20  # SGB_LIMIT_OBJECT of lib/base/io.h
_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


def _kind(mode):
    return next((k for test, k in _KINDS if test(mode)), "not a regular file")


def read_object(path, error):
    """The bytes of the code object at path; raises error(message, "SG_ERR_IO")."""
    # O_NONBLOCK: opening a FIFO does not wait for a writer; fstat then refuses it
    with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise error(f"{path}: a code object must be a regular file, not "
                        f"{_kind(info.st_mode)}", "SG_ERR_IO")
        if info.st_size > OBJECT_LIMIT:
            raise error(f"{path}: {info.st_size} bytes is over the 256 MiB limit for a code "
                        "object", "SG_ERR_IO")
        os.set_blocking(fh.fileno(), True)
        return fh.read(info.st_size)


def _umask():
    """The process's umask, read without changing it (os.umask would, racing threads)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


def write_atomic(path, data):
    """Writes data to path as a compiler writes its output (see the module's doc)."""
    path = os.fspath(path)
    try:
        info = os.stat(path)  # follows a symlink
    except FileNotFoundError:
        info = None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(f"{path}: is a directory")
    if info is not None and not stat.S_ISREG(info.st_mode):
        with open(path, "wb") as f:  # a device or FIFO: in place, as a stream
            f.write(data)
        return
    real = os.path.realpath(path)
    fd, tmp = tempfile.mkstemp(prefix=".softgen-", dir=os.path.dirname(real) or ".")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, real)
    except BaseException:
        os.unlink(tmp)
        raise
