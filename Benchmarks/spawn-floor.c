// spawn-floor: the cost of starting a job on this machine, with nothing else.
//
// Runs `/bin/sh -c COMMAND` N times, J at a time, each child in its own
// process group with every signal at its default action, an empty mask,
// stdin from /dev/null and stdout/stderr through close-on-exec pipes that are
// drained to end of file; each child is reaped through its pidfd. This is the
// floor a job runner's per-job overhead is measured against.
//
//   cc -O2 -o spawn-floor Benchmarks/spawn-floor.c
//   ./spawn-floor [N=2000] [J=2] [COMMAND=true]
//
// Built with -DOPRUN_SPAWN together with Sources/COprunSystem/spawn.c and
// descriptors.c (-ISources/COprunSystem/include), it starts the children with
// oprun's own spawn instead of posix_spawn, for comparison.

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef OPRUN_SPAWN
#include "oprun_system.h"
#endif

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

extern char **environ;

struct slot {
  pid_t pid;
  int pidfd;
  int out;
  int err;
  int exited;
};

static int null_fd;

static void fail(const char *what) {
  perror(what);
  exit(1);
}

static pid_t start(char *const argv[], int out_write, int err_write) {
#ifdef OPRUN_SPAWN
  struct oprun_spawn_plan plan = {
      .path = argv[0], .argv = argv, .envp = environ, .directory = 0,
      .stdin_fd = null_fd, .stdout_fd = out_write, .stderr_fd = err_write,
      .set_nice = 0, .nice = 0, .ioprio = 0, .terminal_fd = -1};
  struct oprun_spawn_failure failure;
  pid_t pid = oprun_spawn(&plan, &failure);
  if (pid < 0) {
    errno = failure.error;
    fail("oprun_spawn");
  }
  return pid;
#else
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, null_fd, 0);
  posix_spawn_file_actions_adddup2(&actions, out_write, 1);
  posix_spawn_file_actions_adddup2(&actions, err_write, 2);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attributes, &all);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  pid_t pid;
  int error = posix_spawn(&pid, argv[0], &actions, &attributes, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (error) {
    errno = error;
    fail("posix_spawn");
  }
  return pid;
#endif
}

static void launch(struct slot *slot, char *const argv[]) {
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) fail("pipe2");
  slot->pid = start(argv, out[1], err[1]);
  close(out[1]);
  close(err[1]);
  slot->out = out[0];
  slot->err = err[0];
  slot->pidfd = (int)syscall(SYS_pidfd_open, slot->pid, 0);
  if (slot->pidfd < 0) fail("pidfd_open");
  slot->exited = 0;
}

static int busy(const struct slot *slot) { return slot->out >= 0 || slot->err >= 0 || !slot->exited; }

static void drain(int *fd) {
  char buffer[65536];
  ssize_t count = read(*fd, buffer, sizeof buffer);
  if (count == 0 || (count < 0 && errno != EINTR && errno != EAGAIN)) {
    close(*fd);
    *fd = -1;
  }
}

static double seconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  int total = argc > 1 ? atoi(argv[1]) : 2000;
  int width = argc > 2 ? atoi(argv[2]) : 2;
  char *command = argc > 3 ? argv[3] : "true";
  // `direct`: the command is a program's path, spawned itself, with no shell (the floor of a
  // tool that runs simple commands directly, as make and oprun do).
  int direct = argc > 4 && strcmp(argv[4], "direct") == 0;
  if (total < 1 || width < 1 || width > 64) {
    fprintf(stderr, "usage: spawn-floor [N] [J<=64] [COMMAND [direct]]\n");
    return 2;
  }
  char *shell_argv[] = {"/bin/sh", "-c", command, 0};
  char *direct_argv[] = {command, 0};
  char **child_argv = direct ? direct_argv : shell_argv;
  null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_fd < 0) fail("/dev/null");

  struct slot slots[64];
  int started = 0, finished = 0;
  double begin = seconds();
  for (int i = 0; i < width && started < total; i++, started++) launch(&slots[i], child_argv);
  int running = started;
  while (finished < total) {
    struct pollfd fds[64 * 3];
    int owners[64 * 3], kinds[64 * 3], count = 0;
    for (int i = 0; i < running; i++) {
      int watched[3] = {slots[i].out, slots[i].err, slots[i].exited ? -1 : slots[i].pidfd};
      for (int k = 0; k < 3; k++) {
        if (watched[k] < 0) continue;
        fds[count] = (struct pollfd){.fd = watched[k], .events = POLLIN};
        owners[count] = i;
        kinds[count++] = k;
      }
    }
    if (poll(fds, count, -1) < 0) {
      if (errno == EINTR) continue;
      fail("poll");
    }
    for (int n = 0; n < count; n++) {
      if (!fds[n].revents) continue;
      struct slot *slot = &slots[owners[n]];
      if (kinds[n] == 0) drain(&slot->out);
      if (kinds[n] == 1) drain(&slot->err);
      if (kinds[n] == 2) {
        int status;
        if (waitpid(slot->pid, &status, WNOHANG) == slot->pid) {
          slot->exited = 1;
          close(slot->pidfd);
        }
      }
    }
    for (int i = 0; i < running; i++) {
      if (busy(&slots[i])) continue;
      finished++;
      if (started < total) {
        launch(&slots[i], child_argv);
        started++;
      } else {
        slots[i] = slots[--running];
        i--;
      }
    }
  }
  double elapsed = seconds() - begin;
  printf("%s: %d x %s'%s', %d at a time: %.3f s, %.3f ms per job\n",
#ifdef OPRUN_SPAWN
         "oprun_spawn",
#else
         "posix_spawn",
#endif
         total, direct ? "" : "/bin/sh -c ", command, width, elapsed, elapsed * 1000.0 / total);
  return 0;
}
