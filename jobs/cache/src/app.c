#include <stdio.h>

/* Sums the first hundred thousand odd numbers: their sum is the square of their count. */
int main(void) {
  unsigned long long sum = 0;
  for (unsigned long long odd = 1; odd < 200000; odd += 2) sum += odd;
  printf("self-test: %s (%llu)\n", sum == 100000ULL * 100000ULL ? "ok" : "FAILED", sum);
  return sum == 100000ULL * 100000ULL ? 0 : 1;
}
