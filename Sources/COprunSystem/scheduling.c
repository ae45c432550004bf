#define _GNU_SOURCE
#include "oprun_system.h"

#include <sched.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

// The kernel's struct sched_attr (uapi linux/sched/types.h), which glibc does not declare
// and whose header clashes with glibc's struct sched_param.
struct thread_sched_attr {
  uint32_t size;
  uint32_t sched_policy;
  uint64_t sched_flags;
  int32_t sched_nice;
  uint32_t sched_priority;
  uint64_t sched_runtime;
  uint64_t sched_deadline;
  uint64_t sched_period;
  uint32_t sched_util_min;
  uint32_t sched_util_max;
};
static const uint64_t sched_flag_reset_on_fork = 0x01;  // SCHED_FLAG_RESET_ON_FORK

void oprun_request_thread_slice(unsigned long long nanoseconds) {
  if (sched_getscheduler(0) != SCHED_OTHER) return;
  int niceness = getpriority(PRIO_PROCESS, 0);  // this thread's; -1 on failure too
  if (niceness < 0) return;
  struct thread_sched_attr attr = {0};
  attr.size = sizeof attr;
  attr.sched_policy = SCHED_OTHER;
  attr.sched_flags = sched_flag_reset_on_fork;
  attr.sched_nice = niceness;
  attr.sched_runtime = nanoseconds;
  syscall(SYS_sched_setattr, 0, &attr, 0);
}

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
