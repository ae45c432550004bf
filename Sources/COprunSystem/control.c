#define _GNU_SOURCE
#include "oprun_control.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int fill_address(struct sockaddr_un *address, const char *path) {
  memset(address, 0, sizeof *address);
  address->sun_family = AF_UNIX;
  size_t length = strlen(path);
  if (length == 0 || length >= sizeof address->sun_path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  memcpy(address->sun_path, path, length + 1);
  return 0;
}

static int close_keeping_errno(int fd) {
  int error = errno;
  close(fd);
  errno = error;
  return -1;
}

int oprun_unix_listen(const char *path, int backlog) {
  struct sockaddr_un address;
  if (fill_address(&address, path) != 0) return -1;
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  if (bind(fd, (struct sockaddr *)&address, sizeof address) != 0) return close_keeping_errno(fd);
  if (listen(fd, backlog) != 0) {
    close_keeping_errno(fd);
    int error = errno;
    unlink(path);
    errno = error;
    return -1;
  }
  return fd;
}

int oprun_unix_connect(const char *path, int nonblocking) {
  struct sockaddr_un address;
  if (fill_address(&address, path) != 0) return -1;
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | (nonblocking ? SOCK_NONBLOCK : 0), 0);
  if (fd < 0) return -1;
  int result;
  do {
    result = connect(fd, (struct sockaddr *)&address, sizeof address);
  } while (result != 0 && errno == EINTR);
  // A connect resumed after EINTR may find the first one completed.
  if (result != 0 && errno == EISCONN) result = 0;
  if (result != 0) return close_keeping_errno(fd);
  return fd;
}

int oprun_accept_nonblocking(int fd) {
  int accepted;
  do {
    accepted = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
  } while (accepted < 0 && errno == EINTR);
  return accepted;
}

int oprun_peer_credentials(int fd, uid_t *uid, pid_t *pid) {
  struct ucred credentials;
  socklen_t length = sizeof credentials;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
  *uid = credentials.uid;
  *pid = credentials.pid;
  return 0;
}

int oprun_open_unnamed_file(const char *directory) {
  int fd;
  do {
    fd = open(directory, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  } while (fd < 0 && errno == EINTR);
  return fd;
}
