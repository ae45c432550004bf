#define _GNU_SOURCE
#include "oprun_system.h"

#include <sys/xattr.h>

int oprun_set_attribute(int fd, const char *name, const void *value, size_t size) {
  return fsetxattr(fd, name, value, size, 0);
}

ssize_t oprun_get_attribute(const char *path, const char *name, void *value, size_t size) {
  return lgetxattr(path, name, value, size);
}
