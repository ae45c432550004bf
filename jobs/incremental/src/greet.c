/* The greeting: edit this comment, and only greet.o is compiled again. */
#include "greet.h"

const char *greeting(void) { return "hello from an incremental build"; }
