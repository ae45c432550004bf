#ifndef OPRUN_SYSTEM_H
#define OPRUN_SYSTEM_H
// Thin wrappers for the Linux calls Glibc's Swift module does not expose.
#endif
