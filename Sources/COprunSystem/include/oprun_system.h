#ifndef OPRUN_SYSTEM_H
#define OPRUN_SYSTEM_H
// Thin wrappers for the Linux calls Glibc's Swift module does not expose, the
// spawn that applies a job's QoS before its command runs, and the signal
// handlers that only record.

#include <stdint.h>
#include <sys/types.h>

// The control channel's socket calls. Included here so that a build whose module cache
// predates that header sees it too (the module's umbrella is this folder).
#include "oprun_control.h"
#include "oprun_sha256.h"

// MARK: - Descriptors

/// pipe2(O_CLOEXEC), with O_NONBLOCK on the read end only when asked.
/// Returns 0, or -1 with errno set.
int oprun_pipe_cloexec(int fds[2], int nonblocking_read_end);

/// mkostemp(template_path, O_CLOEXEC): a new file named after the template (its XXXXXX
/// replaced), close-on-exec from the start. Returns the descriptor, or -1 with errno set.
int oprun_make_temporary_file(char *template_path);

/// pidfd_open(pid, 0): a close-on-exec descriptor that becomes readable when
/// the process exits. Returns -1 with errno set on failure.
int oprun_pidfd_open(pid_t pid);

/// fallocate(target, FALLOC_FL_KEEP_SIZE, where target is, count): gives the file the blocks
/// `count` more bytes will take, without changing its size, so that writing them allocates
/// nothing page by page. Returns 0, or -1 with errno set (EOPNOTSUPP where the file system
/// cannot).
int oprun_reserve_space(int target, unsigned long count);

/// copy_file_range(source, &source_offset, target, NULL, count, 0): copies in the kernel,
/// from `*source_offset` (advanced) to where `target` is. Returns the bytes copied, 0 at the
/// source's end, or -1 with errno set (EXDEV, ENOSYS, EOPNOTSUPP, EINVAL where it cannot).
long oprun_copy_file_range(int source, long long *source_offset, int target, unsigned long count);

/// Bytes waiting in a pipe (FIONREAD), or -1 with errno set.
int oprun_bytes_readable(int fd);

/// The symbolic name of an errno value (`EMFILE`), or NULL for an unknown one.
const char *oprun_errno_name(int error);

/// CPUs this process may run on (its affinity mask), or sysconf's online count.
int oprun_cpu_count_available(void);

/// prctl(PR_SET_CHILD_SUBREAPER, 1): orphaned descendants become this process's
/// children instead of init's, so that the run can reap what its jobs left behind.
/// Returns 0, or -1 with errno set.
int oprun_become_child_subreaper(void);

// MARK: - Scheduling

/// ioprio_get(IOPRIO_WHO_PROCESS, pid): class << 13 | level, or -1 with errno.
int oprun_ioprio_get(pid_t pid);

/// The I/O priority value for a class (1 realtime, 2 best-effort, 3 idle) and level.
int oprun_ioprio_value(int io_class, int level);

/// Asks for a time slice of `nanoseconds` for the calling thread (sched_attr.sched_runtime,
/// honoured for SCHED_OTHER since Linux 6.12), with SCHED_RESET_ON_FORK so that the
/// processes and threads it starts get the default slice. Left alone: a thread under another
/// policy, or with a negative niceness (which reset-on-fork would take from its children).
/// A refusal leaves the default slice; a kernel before 6.12 sets the attributes and ignores
/// the slice.
void oprun_request_thread_slice(unsigned long long nanoseconds);

// MARK: - Spawning

/// What the child does between its creation and its command.
struct oprun_spawn_plan {
  /// Absolute path of the program, argv and envp as execve takes them.
  const char *path;
  char *const *argv;
  char *const *envp;
  /// Directory to change to, or NULL to stay.
  const char *directory;
  /// Descriptors to become 0, 1, 2 in the child; -1 leaves that one inherited.
  int stdin_fd;
  int stdout_fd;
  int stderr_fd;
  /// When non-zero, setpriority(PRIO_PROCESS, 0, nice) is tried; a refusal
  /// (no privilege to lower it) leaves the inherited niceness.
  int set_nice;
  int nice;
  /// When non-zero, ioprio_set(IOPRIO_WHO_PROCESS, 0, ioprio) is tried.
  int ioprio;
  /// A terminal descriptor whose foreground process group the child takes, or -1.
  int terminal_fd;
  /// A socket (the watchdog's channel), or -1. Just before it execs, the child writes its
  /// pid into the last four bytes of `announcement` and sends it there without waiting, so
  /// that its group is known before its command can run; `*announced` is left with how many
  /// bytes went (-1 when none did, or when the child does not share oprun's memory, as
  /// under ThreadSanitizer: then it does not try, and the caller sends them itself).
  int announce_fd;
  unsigned char *announcement;
  size_t announcement_length;
  long *announced;
  /// A command run without the shell: the program's possible paths in `PATH` order
  /// (NULL-terminated) and its argv, tried before `path`. The child goes on to the next path
  /// where the program is missing or not executable, as the shell's lookup does, and runs
  /// `path` (the shell, with the same command) when none can be executed, so that a missing
  /// program or a script without `#!` is reported exactly as the shell reports it. NULL for none.
  char *const *direct_paths;
  char *const *direct_argv;
  /// Descriptors of `cgroup.procs` files (or v1 `tasks`) opened by the caller: right after
  /// it makes its own process group, the child writes "0" to each, which moves it into
  /// those cgroups before its command can run or allocate anything. A refusal is ignored:
  /// the command still runs, outside. NULL (or a count of 0) for none.
  const int *cgroup_fds;
  int cgroup_fd_count;
};

/// Where a spawn failed, in oprun_spawn_failure.stage.
enum oprun_spawn_stage {
  OPRUN_SPAWN_STAGE_NONE = 0,
  OPRUN_SPAWN_STAGE_FORK = 1,
  OPRUN_SPAWN_STAGE_SETUP = 2,
  OPRUN_SPAWN_STAGE_DIRECTORY = 3,
  OPRUN_SPAWN_STAGE_EXEC = 4,
};

struct oprun_spawn_failure {
  int stage;
  int error;
};

/// Starts `plan->path` in a new process group (pgid = pid) with every signal
/// at its default action, an empty signal mask, and the plan's niceness and
/// I/O priority applied before exec. Returns the child's pid; or -1 with
/// `failure` filled in, in which case no child is left running (a child that
/// failed after its creation has been reaped).
pid_t oprun_spawn(const struct oprun_spawn_plan *plan, struct oprun_spawn_failure *failure);

// MARK: - Extended attributes

/// fsetxattr(fd, name, value, size, 0). Returns 0, or -1 with errno set.
int oprun_set_attribute(int fd, const char *name, const void *value, size_t size);

/// lgetxattr(path, name, value, size): the attribute's length, or -1 with errno set (ENODATA
/// when the file has none, ERANGE when it is longer than `size`).
ssize_t oprun_get_attribute(const char *path, const char *name, void *value, size_t size);

// MARK: - Helper programs

/// Where the helper program `name` was built or installed with oprun's executable: in the
/// same folder (a build tree), else in ../libexec/oprun/ (an installed oprun). Writes its
/// path to `path` and returns 1, or returns 0 (and an empty `path`) when neither holds one
/// that can be run.
int oprun_find_helper_program(const char *name, char *path, size_t size);

/// Starts the first of `programs` (NULL-terminated) that can be exec'd, with `arguments`
/// and this process's environment, as a process oprun neither reaps nor adopts: a short-lived
/// middle process starts it and exits, so it becomes a child of init (or of a subreaper above
/// oprun; while it starts, this process's subreaper flag is cleared, then put back, one start
/// at a time). It has a process group of its own, every signal blocked (it unblocks what it
/// wants) and `descriptor` (else -1) kept open across its exec. When no program can be
/// exec'd, `instead(context)` runs in a fork of the middle process in its place (raw system
/// calls only), or with `instead` NULL the start fails. Returns its pid, or -1 with errno set.
pid_t oprun_start_detached(const char *const programs[], char *const arguments[], int descriptor,
                           void (*instead)(void *), void *context);

// MARK: - Watchdog

/// Starts the run's watchdog: a process that ends the run's process groups if oprun dies
/// without ending them itself (SIGKILL, the OOM killer, a crash). It holds no descriptor of
/// oprun's but its end of a socket whose other end, close-on-exec, goes to `*channel`; it
/// is in a process group of its own, ignores the signals a terminal or a shell sends, and
/// is no child of oprun's (it is left to init, or to a subreaper above oprun: while it
/// starts, oprun's own subreaper flag is cleared, then put back as it was; so start it
/// before oprun becomes the subreaper of its jobs, whose orphans would go elsewhere meanwhile).
///
/// Write native-endian int32 records to `*channel`: a process group (> 1) to list it, its
/// negation to unlist it, 0 when the run ended cleanly (the watchdog then exits). When the
/// channel closes without 0, every listed group gets SIGTERM and SIGCONT at once, and
/// SIGKILL once `grace_nanoseconds` have passed if it still has a process.
/// `cgroup_folders` (NULL for none): the run's cgroup folders, each ended by a NUL and the
/// list by an empty one. After the groups have ended, each folder's child cgroups lose
/// what they still hold (`cgroup.kill`, else SIGKILL to each process of `cgroup.procs`)
/// and are removed, then the folder itself, trying for a few seconds at most.
/// Returns the watchdog's pid, or -1 with errno set (nothing is left running or open).
pid_t oprun_watchdog_start(int64_t grace_nanoseconds, const char *cgroup_folders, int *channel);

// MARK: - Signals

/// Makes `fd` the descriptor the recording handler writes signal numbers to.
/// Only one trap exists per process: returns -1 with errno EBUSY when one is
/// already claimed, else 0.
int oprun_signal_trap_claim(int fd);

/// Forgets the trap's descriptor: the handler then records nothing.
void oprun_signal_trap_release(void);

/// The handler: writes the signal number as one byte to the trap's descriptor.
/// Async-signal-safe; keeps errno.
void oprun_signal_trap_record(int signal_number);

/// Installs the recording handler for `signal_number`, saving the action it
/// replaces (the first time only). A signal oprun was started with ignored
/// (nohup, `&` in a script) stays ignored, as shells and make leave it: then
/// returns 1. Otherwise returns 0, or -1 with errno.
int oprun_signal_trap_install(int signal_number);

/// Sets `signal_number` to SIG_IGN, saving the action it replaces (the first
/// time only). Returns 0, or -1 with errno.
int oprun_signal_trap_ignore(int signal_number);

/// Sets `signal_number` to SIG_DFL, saving the action it replaces (the first
/// time only). Returns 0, or -1 with errno.
int oprun_signal_trap_default(int signal_number);

/// Puts back the action saved for `signal_number`, if any. Returns 0, or -1 with errno.
int oprun_signal_trap_restore(int signal_number);

/// Sets `signal_number` to SIG_DFL without forgetting the saved action.
int oprun_signal_set_default(int signal_number);

enum oprun_signal_disposition {
  OPRUN_SIGNAL_DEFAULT = 0,
  OPRUN_SIGNAL_IGNORED = 1,
  OPRUN_SIGNAL_RECORDED = 2,
  OPRUN_SIGNAL_OTHER = 3,
};

/// What `signal_number` is set to do now (an oprun_signal_disposition), or -1 with errno.
int oprun_signal_disposition(int signal_number);

/// Unblocks `signal_number` in the calling thread. Returns 0, or an error number.
int oprun_signal_unblock(int signal_number);

/// Blocks `signal_number` in the calling thread. Returns 0, or an error number.
int oprun_signal_block(int signal_number);

/// Blocks every signal in the calling thread: for a helper thread that must never be
/// the one a signal sent to the process wakes.
void oprun_block_all_signals(void);

/// Whether `signal_number` is blocked in the calling thread: 1 or 0.
int oprun_signal_is_blocked(int signal_number);

/// tcsetpgrp(fd, pgid) with SIGTTOU blocked in the calling thread, so a
/// process in a background group may hand the terminal over. Returns 0 or -1 with errno.
int oprun_terminal_set_foreground(int fd, pid_t pgid);

#endif
