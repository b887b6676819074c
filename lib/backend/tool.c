/* tool.c - external tools run on buffers (backend/tool.h). POSIX. */
#define _POSIX_C_SOURCE 200809L
#include "backend/tool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/io.h"

static int executable(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && access(path, X_OK) == 0;
}

sg_status sge_tool_find(const char *name, const char *explicit_path, const char *home_env,
                       const char *extra_dir, char *out, size_t cap, sg_diag *diag) {
  if (explicit_path) {
    if (!executable(explicit_path))
      return sg_diag_set(diag, SG_ERR_TOOL, "%s: not an executable file", explicit_path);
    snprintf(out, cap, "%s", explicit_path);
    return SG_OK;
  }
  const char *home = home_env ? getenv(home_env) : NULL;
  if (home && *home) {
    snprintf(out, cap, "%s/bin/%s", home, name);
    if (executable(out))
      return SG_OK;
  }
  if (extra_dir) {
    snprintf(out, cap, "%s/%s", extra_dir, name);
    if (executable(out))
      return SG_OK;
  }
  const char *path = getenv("PATH");
  while (path && *path) {
    const char *end = strchr(path, ':');
    size_t n = end ? (size_t)(end - path) : strlen(path);
    if (n > 0 && n + strlen(name) + 2 <= cap) {
      snprintf(out, cap, "%.*s/%s", (int)n, path, name);
      if (executable(out))
        return SG_OK;
    }
    path = end ? end + 1 : NULL;
  }
  return sg_diag_set(diag, SG_ERR_TOOL, "%s not found%s%s%s on PATH", name,
                     home_env ? " under $" : "", home_env ? home_env : "", home_env ? "/bin or" : "");
}

sg_status sge_tool_run(const char *const *argv, const sg_buffer *in, const char *in_ext,
                      const char *out_ext, sg_buffer *out, sg_diag *diag) {
  const char *tmpdir = getenv("TMPDIR");
  char dir[512], inpath[600], outpath[600], errpath[600];
  snprintf(dir, sizeof dir, "%s/softgen-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
  if (!mkdtemp(dir))
    return sg_diag_set(diag, SG_ERR_IO, "cannot create a temporary directory: %s", strerror(errno));
  snprintf(inpath, sizeof inpath, "%s/in%s", dir, in_ext);
  snprintf(outpath, sizeof outpath, "%s/out%s", dir, out_ext);
  snprintf(errpath, sizeof errpath, "%s/stderr", dir);
  const char *args[32];
  int n = 0;
  for (; argv[n] && n < 31; n++)
    args[n] = strcmp(argv[n], "@IN@") == 0 ? inpath : strcmp(argv[n], "@OUT@") == 0 ? outpath : argv[n];
  args[n] = NULL;
  sg_status st = sgb_write_file(inpath, in->data, in->size, diag);
  if (!st) {
    pid_t pid = fork();
    if (pid == 0) {
      int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (fd >= 0) {
        dup2(fd, 2);
        dup2(fd, 1);
      }
      execv(args[0], (char *const *)args);
      _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0)
      st = sg_diag_set(diag, SG_ERR_TOOL, "cannot run %s: %s", args[0], strerror(errno));
    else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      char *err = NULL;
      size_t len = 0;
      if (sgb_read_input(errpath, "a tool's messages", (size_t)1 << 16, &err, &len, NULL))
        err = NULL;
      if (err && len > 600)
        err[600] = '\0';
      st = sg_diag_set(diag, SG_ERR_TOOL, "%s failed (%s %d): %s", args[0],
                       WIFEXITED(status) ? "exit status" : "signal",
                       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
                       err ? err : "(no output)");
      free(err);
    } else {
      char *data;
      size_t len;
      st = sgb_read_input(outpath, "a code object", SGB_LIMIT_OBJECT, &data, &len, diag);
      if (!st) {
        out->data = data;
        out->size = len;
      }
    }
  }
  remove(inpath);
  remove(outpath);
  remove(errpath);
  rmdir(dir);
  return st;
}

sg_status sge_tool_version(const char *path, char *out, size_t cap, sg_diag *diag) {
  int fds[2];
  if (cap == 0 || pipe(fds) != 0)
    return sg_diag_set(diag, SG_ERR_TOOL, "cannot run %s: %s", path, strerror(errno));
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    close(fds[0]);
    close(fds[1]);
    execl(path, path, "--version", (char *)NULL);
    _exit(127);
  }
  close(fds[1]);
  size_t len = 0;
  ssize_t r;
  char sink[256];
  while (pid > 0 && (r = read(fds[0], len + 1 < cap ? out + len : sink,
                              len + 1 < cap ? cap - 1 - len : sizeof sink)) != 0) {
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      break;
    if (len + 1 < cap)
      len += (size_t)r;
  }
  out[len] = '\0';
  close(fds[0]);
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return sg_diag_set(diag, SG_ERR_TOOL, "%s --version failed", path);
  return SG_OK;
}
