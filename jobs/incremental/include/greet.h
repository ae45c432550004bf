/* What the three units of the example share. */
#ifndef GREET_H
#define GREET_H

const char *greeting(void);
int sum(const int *values, int count);

#endif
