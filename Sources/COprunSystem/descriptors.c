#define _GNU_SOURCE
#include "oprun_system.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

int oprun_pipe_cloexec(int fds[2], int nonblocking_read_end) {
  if (pipe2(fds, O_CLOEXEC) != 0) return -1;
  if (nonblocking_read_end && fcntl(fds[0], F_SETFL, O_NONBLOCK) != 0) {
    int error = errno;
    close(fds[0]);
    close(fds[1]);
    errno = error;
    return -1;
  }
  return 0;
}

int oprun_make_temporary_file(char *template_path) { return mkostemp(template_path, O_CLOEXEC); }

int oprun_pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

int oprun_bytes_readable(int fd) {
  int count = 0;
  if (ioctl(fd, FIONREAD, &count) != 0) return -1;
  return count;
}

int oprun_become_child_subreaper(void) {
  return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

int oprun_reserve_space(int target, unsigned long count) {
  off_t start = lseek(target, 0, SEEK_CUR);
  if (start < 0 || count == 0) return -1;
  return fallocate(target, FALLOC_FL_KEEP_SIZE, start, (off_t)count);
}

long oprun_copy_file_range(int source, long long *source_offset, int target, unsigned long count) {
  loff_t offset = *source_offset;
  ssize_t copied = copy_file_range(source, &offset, target, NULL, count, 0);
  *source_offset = offset;
  return copied;
}
