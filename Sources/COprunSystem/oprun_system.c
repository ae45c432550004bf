#include "oprun_system.h"
