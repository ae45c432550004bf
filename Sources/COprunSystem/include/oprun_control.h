#ifndef OPRUN_CONTROL_H
#define OPRUN_CONTROL_H
// The socket calls of the control channel (SPEC §8) that Glibc's Swift module does not
// expose: accept4, SO_PEERCRED, O_TMPFILE, and sockaddr_un filled in from a path.

#include <sys/types.h>

/// socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK), bound to `path` and
/// listening with `backlog`. Returns the descriptor, or -1 with errno set (ENAMETOOLONG
/// for a path longer than sun_path holds); nothing is left open on failure.
int oprun_unix_listen(const char *path, int backlog);

/// socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC), non-blocking when asked, connected to
/// `path`. A non-blocking connect to a listener whose backlog is full fails with EAGAIN;
/// a socket file nobody listens on with ECONNREFUSED. Returns the descriptor, or -1 with
/// errno set; nothing is left open on failure.
int oprun_unix_connect(const char *path, int nonblocking);

/// accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC), resumed after EINTR.
int oprun_accept_nonblocking(int fd);

/// The uid and pid of the process at the other end of a Unix-domain socket when it
/// connected (SO_PEERCRED). Returns 0, or -1 with errno set.
int oprun_peer_credentials(int fd, uid_t *uid, pid_t *pid);

/// An unnamed regular file in `directory` (O_TMPFILE | O_RDWR | O_CLOEXEC, mode 0600): it
/// has no name to find or to clean up, and is gone with its last descriptor. Returns the
/// descriptor, or -1 with errno set (EOPNOTSUPP or EISDIR where the file system cannot).
int oprun_open_unnamed_file(const char *directory);

#endif
