#define _GNU_SOURCE
#include "oprun_system.h"

#include <string.h>

const char *oprun_errno_name(int error) { return strerrorname_np(error); }
