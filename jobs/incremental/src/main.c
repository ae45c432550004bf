/* Prints the greeting and a sum; `--self-test` checks the sum instead. */
#include <stdio.h>
#include <string.h>
#include "greet.h"

int main(int argc, char **argv) {
  int values[] = {1, 2, 3};
  int total = sum(values, 3);
  if (argc > 1 && strcmp(argv[1], "--self-test") == 0) {
    printf("sum of 1, 2, 3 is %d: %s\n", total, total == 6 ? "ok" : "wrong");
    return total == 6 ? 0 : 1;
  }
  printf("%s: %d\n", greeting(), total);
  return 0;
}
