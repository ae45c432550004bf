#define _GNU_SOURCE
#include "oprun_system.h"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

int oprun_ioprio_get(pid_t pid) {
  const int who_process = 1;
  return (int)syscall(SYS_ioprio_get, who_process, pid);
}

int oprun_ioprio_value(int io_class, int level) { return (io_class << 13) | level; }

int oprun_cpu_count_available(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int count = CPU_COUNT(&set);
    if (count > 0) return count;
  }
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? (int)online : 1;
}
