#define _GNU_SOURCE
#include "oprun_system.h"
#include "child_signals.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

// The child runs in the parent's memory (vfork) until it execs, so it only
// makes raw system calls through syscall(2): no libc locks or caches, no
// sanitizer interceptors, no handlers of the parent's. A failure before exec is
// written into the parent's memory, which costs nothing; under ThreadSanitizer
// vfork becomes fork, so there it travels through a close-on-exec pipe instead.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define OPRUN_VFORK_SHARES_MEMORY 0
#endif
#endif
#ifndef OPRUN_VFORK_SHARES_MEMORY
#define OPRUN_VFORK_SHARES_MEMORY 1
#endif

/// Where the child reports a failure: the parent's memory, or a pipe.
struct child_report {
  volatile struct oprun_spawn_failure *shared;
  int fd;
};

__attribute__((noreturn)) static void child_fail(const struct child_report *report, int stage, int error) {
  if (report->shared) {
    report->shared->error = error;
    report->shared->stage = stage;
  } else {
    struct oprun_spawn_failure failure = {stage, error};
    syscall(SYS_write, report->fd, &failure, sizeof failure);
  }
  syscall(SYS_exit_group, 127);
  __builtin_unreachable();
}

// Moves a descriptor that is itself 0, 1 or 2 out of the way before the
// targets are overwritten (possible when oprun was started with one closed).
static int child_lift_above_stdio(int fd) {
  if (fd < 0 || fd > 2) return fd;
  return (int)syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 3);
}

static void child_install_stdio(const struct oprun_spawn_plan *plan, const struct child_report *report) {
  int sources[3] = {plan->stdin_fd, plan->stdout_fd, plan->stderr_fd};
  for (int target = 0; target < 3; target++) {
    sources[target] = child_lift_above_stdio(sources[target]);
  }
  for (int target = 0; target < 3; target++) {
    if (sources[target] < 0) continue;
    if (syscall(SYS_dup3, sources[target], target, 0) < 0) {
      child_fail(report, OPRUN_SPAWN_STAGE_SETUP, errno);
    }
  }
}

// Writes into oprun's memory (shared until exec) what it sent, and its pid in the last slot.
static void child_announce(const struct oprun_spawn_plan *plan) {
  int32_t self = (int32_t)syscall(SYS_getpid);
  __builtin_memcpy(plan->announcement + plan->announcement_length - sizeof self, &self, sizeof self);
  *plan->announced = syscall(SYS_sendto, plan->announce_fd, plan->announcement, plan->announcement_length,
                             MSG_DONTWAIT | MSG_NOSIGNAL, 0, 0);
}

// Returns only when no path of the program could be executed; the shell then runs the
// command and says why, as it would have. Like the shell's lookup, a path where the program
// is missing or not executable passes to the next; any other failure (a script without `#!`
// among them, which the shell runs itself) goes to the shell at once.
static void child_exec_directly(const struct oprun_spawn_plan *plan) {
  for (char *const *candidate = plan->direct_paths; *candidate; candidate++) {
    syscall(SYS_execve, *candidate, plan->direct_argv, plan->envp);
    if (errno != ENOENT && errno != ENOTDIR && errno != EACCES) return;
  }
}

__attribute__((noreturn)) static void child_run(const struct oprun_spawn_plan *plan, const struct child_report *report) {
  if (syscall(SYS_setpgid, 0, 0) != 0) child_fail(report, OPRUN_SPAWN_STAGE_SETUP, errno);
  for (int index = 0; index < plan->cgroup_fd_count; index++) {
    syscall(SYS_write, plan->cgroup_fds[index], "0", 1);
  }
  oprun_child_reset_signal_actions();
  if (plan->terminal_fd >= 0) {
    pid_t self = (pid_t)syscall(SYS_getpid);
    syscall(SYS_ioctl, plan->terminal_fd, TIOCSPGRP, &self);
  }
  // Refusals are expected (lowering niceness needs privilege) and leave what was inherited.
  if (plan->set_nice) syscall(SYS_setpriority, PRIO_PROCESS, 0, plan->nice);
  if (plan->ioprio) syscall(SYS_ioprio_set, 1, 0, plan->ioprio);
  if (plan->directory && syscall(SYS_chdir, plan->directory) != 0) {
    child_fail(report, OPRUN_SPAWN_STAGE_DIRECTORY, errno);
  }
  child_install_stdio(plan, report);
  if (plan->announce_fd >= 0 && report->shared) child_announce(plan);
  oprun_child_unblock_signals();
  if (plan->direct_paths) child_exec_directly(plan);
  syscall(SYS_execve, plan->path, plan->argv, plan->envp);
  child_fail(report, OPRUN_SPAWN_STAGE_EXEC, errno);
}

static ssize_t read_fully(int fd, void *buffer, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t count = read(fd, (char *)buffer + done, size - done);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) break;
    done += (size_t)count;
  }
  return (ssize_t)done;
}

static void reap(pid_t pid) {
  while (waitpid(pid, 0, 0) < 0 && errno == EINTR) {
  }
}

pid_t oprun_spawn(const struct oprun_spawn_plan *plan, struct oprun_spawn_failure *failure) {
  failure->stage = OPRUN_SPAWN_STAGE_NONE;
  failure->error = 0;
  if (plan->announced) *plan->announced = -1;
  volatile struct oprun_spawn_failure shared = {OPRUN_SPAWN_STAGE_NONE, 0};
  struct child_report report = {0, -1};
  int pipe_ends[2] = {-1, -1};
  if (OPRUN_VFORK_SHARES_MEMORY) {
    report.shared = &shared;
  } else {
    if (pipe2(pipe_ends, O_CLOEXEC) != 0) {
      failure->stage = OPRUN_SPAWN_STAGE_FORK;
      failure->error = errno;
      return -1;
    }
    report.fd = pipe_ends[1];
  }
  // No handler of ours may run in the child while it shares our memory.
  oprun_prepare_child_signal_reset();
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  pid_t pid = vfork();
  if (pid == 0) child_run(plan, &report);
  int fork_error = errno;
  pthread_sigmask(SIG_SETMASK, &previous, 0);
  if (pipe_ends[1] >= 0) close(pipe_ends[1]);
  if (pid < 0) {
    if (pipe_ends[0] >= 0) close(pipe_ends[0]);
    failure->stage = OPRUN_SPAWN_STAGE_FORK;
    failure->error = fork_error;
    return -1;
  }
  struct oprun_spawn_failure reported = {shared.stage, shared.error};
  if (pipe_ends[0] >= 0) {
    ssize_t count = read_fully(pipe_ends[0], &reported, sizeof reported);
    close(pipe_ends[0]);
    if (count != (ssize_t)sizeof reported) reported.stage = OPRUN_SPAWN_STAGE_NONE;
  }
  if (reported.stage != OPRUN_SPAWN_STAGE_NONE) {
    reap(pid);
    *failure = reported;
    return -1;
  }
  return pid;
}
