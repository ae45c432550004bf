#define _GNU_SOURCE
#include "child_signals.h"
#include "oprun_system.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_close_range
#define SYS_close_range 436
#endif

// The watchdog is a program of its own, `oprun-watchdog`: this file built alone and static
// (OPRUN_WATCHDOG_PROGRAM, `make build`), beside oprun's executable or, installed, in
// ../libexec/oprun/. Where that program is missing it is oprun's own executable run again
// (/proc/self/exe): this file's constructor turns either into the watchdog before anything
// else runs. The small program is what a run should pay: loading oprun's 40 MB executable
// again took 1.5 ms of CPU at every run's start, on the core its first job needs. The
// watchdog used to be a fork that never exec'd: it then shared every page of oprun's memory
// copy-on-write for the whole run, and each page oprun wrote afterwards cost a copy and, with
// oprun's threads, a TLB shootdown on every CPU (a quarter of the CPU of a --watch cycle over
// 10,000 files). Where no executable can be run, it is still such a fork. Either way it makes
// raw system calls only (no allocation, no libc lock, no sanitizer interceptor). Its whole
// state is the set of listed process groups, one bit per possible group number
// (PID_MAX_LIMIT on 64-bit Linux); the pages it never touches cost nothing.
enum { group_limit = 1 << 22 };
static uint64_t listed_groups[group_limit / 64];

static int is_listable(int32_t group) { return group > 1 && group < group_limit; }

static void list_group(int32_t group) {
  if (is_listable(group)) listed_groups[group / 64] |= 1ULL << (group % 64);
}

static void unlist_group(int32_t group) {
  if (is_listable(group)) listed_groups[group / 64] &= ~(1ULL << (group % 64));
}

/// Sends `signal_number` to every listed group; with 0, unlists the groups that are gone.
/// Returns how many groups stay listed.
static int signal_listed_groups(int signal_number) {
  int listed = 0;
  for (int word = 0; word < group_limit / 64; word++) {
    uint64_t bits = listed_groups[word];
    while (bits) {
      int group = word * 64 + __builtin_ctzll(bits);
      bits &= bits - 1;
      if (syscall(SYS_kill, -group, signal_number) != 0 && errno == ESRCH) {
        unlist_group(group);
      } else {
        listed++;
      }
    }
  }
  return listed;
}

static int64_t monotonic_nanoseconds(void) {
  struct timespec now;
  syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &now);
  return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static void sleep_nanoseconds(int64_t duration) {
  struct timespec span = {duration / 1000000000, duration % 1000000000};
  syscall(SYS_nanosleep, &span, 0);
}

/// What oprun would have done to its leftovers: SIGTERM (and SIGCONT, for a group stopped
/// by Ctrl-Z) to every group at once, then SIGKILL to what is left when the grace ends.
static void end_listed_groups(int64_t grace) {
  signal_listed_groups(SIGTERM);
  signal_listed_groups(SIGCONT);
  int64_t deadline = monotonic_nanoseconds() + grace;
  const int64_t check_interval = 10 * 1000000;
  while (signal_listed_groups(0) > 0) {
    int64_t left = deadline - monotonic_nanoseconds();
    if (left <= 0) {
      signal_listed_groups(SIGKILL);
      return;
    }
    sleep_nanoseconds(left < check_interval ? left : check_interval);
  }
}

/// The run's cgroup folders as the watchdog run again was given them (see
/// oprun_watchdog_entry): each ended by a NUL, the list by an empty one.
static char cgroup_folders[8192];

/// Appends `name` to the path in `path` (of `length` bytes) after a slash; 0 when it does not fit.
static int join_path(char *path, size_t length, const char *name, size_t room) {
  size_t name_length = strlen(name);
  if (length + 1 + name_length + 1 > room) return 0;
  path[length] = '/';
  memcpy(path + length + 1, name, name_length + 1);
  return 1;
}

/// SIGKILL to every process a cgroup holds: `cgroup.kill` where the kernel has it (cgroup
/// v2, 5.14 on), else each pid its `cgroup.procs` lists.
static void kill_cgroup(char *path, size_t length, size_t room) {
  if (join_path(path, length, "cgroup.kill", room)) {
    int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
      long written = syscall(SYS_write, fd, "1", 1);
      syscall(SYS_close, fd);
      path[length] = 0;
      if (written == 1) return;
    }
  }
  if (!join_path(path, length, "cgroup.procs", room)) return;
  int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
  path[length] = 0;
  if (fd < 0) return;
  char text[4096];
  long count;
  int32_t pid = 0;
  while ((count = syscall(SYS_read, fd, text, sizeof text)) > 0) {
    for (long index = 0; index < count; index++) {
      if (text[index] >= '0' && text[index] <= '9') {
        pid = pid * 10 + (text[index] - '0');
      } else {
        if (pid > 1) syscall(SYS_kill, pid, SIGKILL);
        pid = 0;
      }
    }
  }
  if (pid > 1) syscall(SYS_kill, pid, SIGKILL);
  syscall(SYS_close, fd);
}

/// Empties and removes every child cgroup of `folder`, then `folder`; 1 when it is gone.
static int remove_cgroup_folder(const char *folder) {
  char path[4096];
  size_t length = strlen(folder);
  if (length + 1 > sizeof path) return 1;
  memcpy(path, folder, length + 1);
  int directory = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (directory < 0) return errno == ENOENT;
  char entries[4096];
  long count;
  while ((count = syscall(SYS_getdents64, directory, entries, sizeof entries)) > 0) {
    for (long offset = 0; offset < count;) {
      unsigned short entry_length;
      memcpy(&entry_length, entries + offset + 16, sizeof entry_length);
      unsigned char type = (unsigned char)entries[offset + 18];
      const char *name = entries + offset + 19;
      offset += entry_length;
      if (type != DT_DIR || name[0] == '.') continue;
      if (!join_path(path, length, name, sizeof path)) continue;
      size_t child_length = strlen(path);
      kill_cgroup(path, child_length, sizeof path);
      syscall(SYS_rmdir, path);
      path[length] = 0;
    }
  }
  syscall(SYS_close, directory);
  return syscall(SYS_rmdir, folder) == 0 || errno == ENOENT;
}

/// Removes the run's cgroups `folders` (each ended by a NUL, the list by an empty one),
/// trying again while their killed processes exit, for five seconds at most.
static void remove_cgroup_folders(const char *folders) {
  if (!folders || !folders[0]) return;
  int64_t deadline = monotonic_nanoseconds() + 5 * 1000000000LL;
  while (1) {
    int left = 0;
    for (const char *folder = folders; *folder; folder += strlen(folder) + 1) {
      if (!remove_cgroup_folder(folder)) left++;
    }
    if (!left || monotonic_nanoseconds() >= deadline) return;
    sleep_nanoseconds(10 * 1000000);
  }
}

/// Follows oprun's records (a positive number lists a group, a negative one unlists it, 0
/// says the run ended cleanly) until "done" (returns 1) or until oprun's end of the socket
/// is closed without it (returns 0).
///
/// It waits for the close alone (POLLRDHUP: a record arriving wakes nothing) and reads what
/// has come in between, every 20 ms while records keep coming and up to 100 ms apart when
/// none do, so that a run of many short jobs does not wake it once per job. Each record
/// takes an skb of its own in the socket's buffer (enlarged by oprun): hundreds fit at the
/// least, thousands where the system allows; what does not fit waits in oprun.
static int follow_records(int channel) {
  unsigned char buffer[4096];
  size_t held = 0;
  const int shortest_wait = 20;
  const int longest_wait = 100;
  int wait = shortest_wait;
  while (1) {
    struct pollfd closing = {channel, POLLRDHUP, 0};
    syscall(SYS_poll, &closing, 1, wait);
    int received = 0;
    while (1) {
      ssize_t count = syscall(SYS_recvfrom, channel, buffer + held, sizeof buffer - held, MSG_DONTWAIT, 0, 0);
      if (count < 0 && errno == EINTR) continue;
      if (count < 0 && errno == EAGAIN) break;
      if (count <= 0) return 0;
      received = 1;
      held += (size_t)count;
      size_t used = 0;
      for (; held - used >= sizeof(int32_t); used += sizeof(int32_t)) {
        int32_t record;
        memcpy(&record, buffer + used, sizeof record);
        if (record == 0) return 1;
        if (record > 0) {
          list_group(record);
        } else if (record != INT32_MIN) {
          unlist_group(-record);
        }
      }
      memmove(buffer, buffer + used, held - used);
      held -= used;
    }
    wait = received ? shortest_wait : (wait * 2 < longest_wait ? wait * 2 : longest_wait);
  }
}

/// `text` as a non-negative decimal number; -1 when it is none.
static int64_t parse_decimal(const char *text) {
  int64_t value = 0;
  if (!*text) return -1;
  for (; *text; text++) {
    if (*text < '0' || *text > '9' || value > (INT64_MAX - 9) / 10) return -1;
    value = value * 10 + (*text - '0');
  }
  return value;
}

/// Closes every descriptor but `keep`, so that the watchdog holds none of oprun's open: a
/// reader of oprun's output sees its end when oprun ends, a job's pipe closes with the job.
static void close_descriptors_except(int keep) {
  if (keep > 0 && syscall(SYS_close_range, 0, keep - 1, 0) == 0 &&
      syscall(SYS_close_range, keep + 1, ~0U, 0) == 0) {
    return;
  }
  // Kernels before 5.9: the open descriptors, as /proc lists them.
  int directory = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (directory < 0) return;
  char entries[1024];
  long count;
  while ((count = syscall(SYS_getdents64, directory, entries, sizeof entries)) > 0) {
    for (long offset = 0; offset < count;) {
      unsigned short length;
      memcpy(&length, entries + offset + 16, sizeof length);
      int64_t fd = parse_decimal(entries + offset + 19);
      if (fd >= 0 && fd != keep && fd != directory) syscall(SYS_close, (int)fd);
      offset += length;
    }
  }
  syscall(SYS_close, directory);
}

__attribute__((noreturn)) static void watchdog_run(int channel, int64_t grace, const char *cgroup_list) {
  // A group of its own: a terminal's Ctrl-C and Ctrl-Z, and oprun's own sweeps, miss it.
  syscall(SYS_setpgid, 0, 0);
  oprun_child_reset_every_signal_action();
  const int ignored[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE};
  for (size_t index = 0; index < sizeof ignored / sizeof ignored[0]; index++) {
    oprun_child_ignore_signal(ignored[index]);
  }
  oprun_child_unblock_signals();
  close_descriptors_except(channel);
  syscall(SYS_chdir, "/");
  syscall(SYS_prctl, PR_SET_NAME, "oprun-watchdog", 0, 0, 0);
  if (!follow_records(channel)) {
    end_listed_groups(grace);
    remove_cgroup_folders(cgroup_list);
  }
  syscall(SYS_exit_group, 0);
  __builtin_unreachable();
}

/// The name the watchdog is run under (argv[0]), and the word after it: both must be there
/// for the constructor to take a process for the watchdog. The marker changes whenever the
/// arguments or the records do, so that a program left from another version of oprun
/// refuses rather than misreads them.
static const char watchdog_name[] = "oprun-watchdog";
static const char watchdog_marker[] = "--oprun-watchdog-channel";

/// Whether `fd` is a connected Unix stream socket, as oprun's end of the channel makes it: a
/// watchdog run by hand on any other descriptor would take its first failed read for oprun's
/// death.
static int is_channel(int fd) {
  int domain = 0, type = 0;
  socklen_t length = sizeof domain;
  if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &length) != 0 || domain != AF_UNIX) return 0;
  length = sizeof type;
  if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) != 0 || type != SOCK_STREAM) return 0;
  struct sockaddr_un peer;
  length = sizeof peer;
  return getpeername(fd, (struct sockaddr *)&peer, &length) == 0;
}

/// Whether `folder` is absolute and named as oprun names a run's cgroup folder (`oprun-RUN-ID`).
static int is_run_cgroup_folder(const char *folder) {
  const char *name = strrchr(folder, '/');
  return folder[0] == '/' && name && strncmp(name + 1, "oprun-", 6) == 0 && name[7] != 0;
}

/// The watchdog run again: `oprun-watchdog --oprun-watchdog-channel CHANNEL GRACE
/// [CGROUP-FOLDER...]`, in oprun's environment (see oprun_watchdog_start). Runs before main,
/// so that none of oprun's start-up runs in it.
__attribute__((constructor)) static void oprun_watchdog_entry(int argc, char **argv) {
  if (argc < 4 || strcmp(argv[0], watchdog_name) != 0 || strcmp(argv[1], watchdog_marker) != 0) return;
  int64_t channel = parse_decimal(argv[2]);
  int64_t grace = parse_decimal(argv[3]);
  if (channel < 0 || channel > INT32_MAX || grace < 0 || !is_channel((int)channel)) syscall(SYS_exit_group, 2);
  size_t used = 0;
  for (int index = 4; index < argc; index++) {
    // Only what oprun names a run's cgroup folders: whoever runs this by hand may not have it
    // empty and remove any folder it is given.
    if (!is_run_cgroup_folder(argv[index])) continue;
    size_t length = strlen(argv[index]);
    if (used + length + 2 > sizeof cgroup_folders) break;
    memcpy(cgroup_folders + used, argv[index], length + 1);
    used += length + 1;
  }
  cgroup_folders[used] = 0;
  watchdog_run((int)channel, grace, cgroup_folders);
}

/// Most cgroup folders a run has (one per hierarchy), as arguments of the watchdog.
enum { most_cgroup_folders = 32 };

/// The watchdog program beside oprun's executable (oprun_find_helper_program), or empty:
/// found once a process.
static char watchdog_program[4096];
static pthread_once_t watchdog_program_found = PTHREAD_ONCE_INIT;

static void find_watchdog_program(void) {
  oprun_find_helper_program(watchdog_name, watchdog_program, sizeof watchdog_program);
}

/// What a watchdog that no program could run gets, in a fork of the middle process.
struct watchdog_instead {
  int channel;
  int64_t grace;
  const char *cgroups;
};

static void run_watchdog_instead(void *context) {
  const struct watchdog_instead *instead = context;
  watchdog_run(instead->channel, instead->grace, instead->cgroups);
}

pid_t oprun_watchdog_start(int64_t grace_nanoseconds, const char *cgroups, int *channel) {
  pthread_once(&watchdog_program_found, find_watchdog_program);
  int ends[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) return -1;
  // As much room for records as the system grants (net.core.wmem_max caps it).
  int room = 1 << 22;
  setsockopt(ends[0], SOL_SOCKET, SO_SNDBUF, &room, sizeof room);
  // The watchdog's command line, made here: nothing may be allocated between vfork and exec.
  char channel_text[24], grace_text[24];
  snprintf(channel_text, sizeof channel_text, "%d", ends[1]);
  snprintf(grace_text, sizeof grace_text, "%lld", (long long)(grace_nanoseconds > 0 ? grace_nanoseconds : 0));
  char *arguments[4 + most_cgroup_folders + 1] = {
    (char *)watchdog_name, (char *)watchdog_marker, channel_text, grace_text};
  int argument_count = 4;
  for (const char *folder = cgroups ? cgroups : ""; *folder && argument_count < 4 + most_cgroup_folders;
       folder += strlen(folder) + 1) {
    arguments[argument_count++] = (char *)folder;
  }
  arguments[argument_count] = 0;
  // The program, else oprun's own executable (whose constructor turns it into the watchdog),
  // else a fork that never execs. A fork's memory is a copy of oprun's as it is then,
  // `cgroups` (the caller's) included: nothing global is written, so that two threads may
  // start watchdogs at once.
  const char *programs[] = {watchdog_program, "/proc/self/exe", 0};
  const char *const *tried = watchdog_program[0] ? programs : programs + 1;
  struct watchdog_instead instead = {ends[1], grace_nanoseconds, cgroups};
  pid_t watchdog = oprun_start_detached(tried, arguments, ends[1], run_watchdog_instead, &instead);
  int start_error = errno;
  close(ends[1]);
  if (watchdog < 0) {
    close(ends[0]);
    errno = start_error;
    return -1;
  }
  *channel = ends[0];
  return watchdog;
}

#ifdef OPRUN_WATCHDOG_PROGRAM
/// Reached only when the constructor did not take the process: it was not started by oprun.
int main(void) {
  static const char message[] = "oprun-watchdog: started by oprun at a run's first job, not by hand\n";
  syscall(SYS_write, 2, message, sizeof message - 1);
  return 2;
}
#endif
