// The kernel's own cost of a job's joining its cgroups, whoever spawns it (SPEC §12): N runs
// of /usr/bin/true, two at a time, each child (vfork, raw system calls, as oprun's) writing
// "0" into the given join files before it execs. Compare no file, each folder's
// `cgroup.procs`, and (cgroup v1) each folder's `tasks`:
//   cc -O2 -o /tmp/cgroup-join Benchmarks/cgroup-join.c
//   /tmp/cgroup-join 1000                                   # no cgroup
//   /tmp/cgroup-join 1000 MEMCG/cgroup.procs ACCT/cgroup.procs
//   /tmp/cgroup-join 1000 MEMCG/tasks ACCT/tasks
//   /tmp/cgroup-join -s 2 1000 MEMCG0/tasks ACCT0/tasks MEMCG1/tasks ACCT1/tasks
// where MEMCG and ACCT are cgroups made beforehand (as root). With `-s SLOTS` the files are
// that many equal groups and job K joins group K % SLOTS, as oprun's jobs take turns in the
// cgroups of its slots. Prints wall and CPU per job.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds(struct timeval time) { return time.tv_sec + time.tv_usec / 1e6; }

int main(int argc, char **argv) {
  int slots = 1;
  if (argc > 2 && argv[1][0] == '-' && argv[1][1] == 's') slots = atoi(argv[2]), argv += 2, argc -= 2;
  if (argc < 2 || slots < 1) return 2;
  int jobs = atoi(argv[1]), files = argc - 2, joins[8];
  if (files > 8 || files % slots != 0) return 2;
  int perSlot = files / slots;
  for (int index = 0; index < files; index++) {
    joins[index] = open(argv[index + 2], O_WRONLY | O_CLOEXEC);
    if (joins[index] < 0) return perror(argv[index + 2]), 1;
  }
  char *arguments[] = {"true", 0}, *environment[] = {0};
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  int started = 0, running = 0;
  while (started < jobs || running > 0) {
    while (running < 2 && started < jobs) {
      pid_t pid = vfork();
      if (pid == 0) {
        int first = started % slots * perSlot;
        for (int index = first; index < first + perSlot; index++) syscall(SYS_write, joins[index], "0", 1);
        syscall(SYS_execve, "/usr/bin/true", arguments, environment);
        syscall(SYS_exit_group, 127);
      }
      started++, running++;
    }
    if (wait(0) > 0) running--;
  }
  clock_gettime(CLOCK_MONOTONIC, &end);
  struct rusage self, children;
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  double wall = end.tv_sec - start.tv_sec + (end.tv_nsec - start.tv_nsec) / 1e9;
  double cpu = seconds(self.ru_utime) + seconds(self.ru_stime) + seconds(children.ru_utime) + seconds(children.ru_stime);
  printf("%.0f µs/job wall, %.0f µs/job CPU (children included)\n", wall * 1e6 / jobs, cpu * 1e6 / jobs);
  return 0;
}
