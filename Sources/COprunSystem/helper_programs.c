#define _GNU_SOURCE
#include "oprun_system.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int oprun_find_helper_program(const char *name, char *path, size_t size) {
  char folder[4096];
  ssize_t length = readlink("/proc/self/exe", folder, sizeof folder - 1);
  if (length <= 0) return 0;
  folder[length] = 0;
  char *slash = strrchr(folder, '/');
  if (!slash) return 0;
  *slash = 0;
  const char *const places[] = {"%s/%s", "%s/../libexec/oprun/%s"};
  for (size_t index = 0; index < sizeof places / sizeof places[0]; index++) {
    int written = snprintf(path, size, places[index], folder, name);
    if (written > 0 && (size_t)written < size && access(path, X_OK) == 0) return 1;
  }
  if (size) path[0] = 0;
  return 0;
}

// Each start clears this process's subreaper flag while its middle process exits and puts
// it back after: two at once could leave it cleared, or the second's program adopted.
static pthread_mutex_t detached_starts = PTHREAD_MUTEX_INITIALIZER;

pid_t oprun_start_detached(const char *const programs[], char *const arguments[], int descriptor,
                           void (*instead)(void *), void *context) {
  int reply[2];
  if (pipe2(reply, O_CLOEXEC) != 0) return -1;
  // Set by the process that was to run a program when none could be exec'd (its memory
  // is the middle process's, and so this one's, until it execs).
  volatile int exec_failed = 0;
  pthread_mutex_lock(&detached_starts);
  int was_subreaper = 0;
  prctl(PR_GET_CHILD_SUBREAPER, &was_subreaper, 0, 0, 0);
  if (was_subreaper) prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
  // No handler of oprun's may run in the middle process (it shares oprun's memory) or in
  // the started process before its own set-up.
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  pid_t middle = vfork();
  if (middle == 0) {
    pid_t started = vfork();
    if (started == 0) {
      // A group of its own at once: a terminal's Ctrl-C meant for oprun must not reach it.
      syscall(SYS_setpgid, 0, 0);
      if (descriptor >= 0) syscall(SYS_fcntl, descriptor, F_SETFD, 0);
      for (size_t index = 0; programs[index]; index++) {
        syscall(SYS_execve, programs[index], arguments, environ);
      }
      exec_failed = 1;
      syscall(SYS_exit_group, 127);
    }
    if (started > 0 && exec_failed) {
      syscall(SYS_wait4, started, 0, 0, 0);
      started = instead ? (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0) : 0;
      // A fork's memory is a copy of the caller's as it is now, `context` included.
      if (started == 0 && instead) {
        instead(context);
        syscall(SYS_exit_group, 0);
      }
    }
    int32_t pid = started > 0 ? started : 0;
    syscall(SYS_write, reply[1], &pid, sizeof pid);
    syscall(SYS_exit_group, 0);
  }
  int fork_error = errno;
  pthread_sigmask(SIG_SETMASK, &previous, 0);
  close(reply[1]);
  if (middle > 0) {
    while (waitpid(middle, 0, 0) < 0 && errno == EINTR) {
    }
  }
  if (was_subreaper) prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  pthread_mutex_unlock(&detached_starts);
  if (middle < 0) {
    close(reply[0]);
    errno = fork_error;
    return -1;
  }
  // Written before the middle process exited; end of file when it could not fork.
  int32_t started = 0;
  ssize_t count;
  while ((count = read(reply[0], &started, sizeof started)) < 0 && errno == EINTR) {
  }
  close(reply[0]);
  if (count != (ssize_t)sizeof started || started <= 0) {
    errno = EAGAIN;
    return -1;
  }
  return started;
}
