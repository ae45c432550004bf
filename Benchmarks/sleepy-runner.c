// sleepy-runner: the sleepy graph of Benchmarks/schedule.sh (5 layers of 8 `sleep 0.05`, each
// job needing two of the layer before) run by the least a dependency-driven runner does: a
// job is spawned (posix_spawn, no shell) as soon as both its dependencies have exited, at most
// 8 at once; no output pipes, no events, no journal. What no runner can beat on this machine
// with this schedule: it pays for eight processes starting at once on the cores there are.
//
//   cc -O2 -o sleepy-runner Benchmarks/sleepy-runner.c && ./sleepy-runner
#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>

extern char **environ;

enum { layers = 5, width = 8, jobs = layers * width, limit = 8 };

static pid_t pids[jobs];
static int started[jobs], finished[jobs];

static int dependencies_done(int job) {
  int layer = job / width, index = job % width;
  if (layer == 0) return 1;
  int before = (layer - 1) * width;
  return finished[before + index] && finished[before + (index + 3) % width];
}

int main(void) {
  char *arguments[] = {"sleep", "0.05", 0};
  int running = 0, done = 0;
  while (done < jobs) {
    for (int job = 0; job < jobs && running < limit; job++) {
      if (started[job] || !dependencies_done(job)) continue;
      if (posix_spawn(&pids[job], "/usr/bin/sleep", 0, 0, arguments, environ) != 0) {
        perror("posix_spawn");
        return 1;
      }
      started[job] = 1;
      running++;
    }
    pid_t pid = wait(0);
    if (pid < 0) {
      perror("wait");
      return 1;
    }
    for (int job = 0; job < jobs; job++) {
      if (started[job] && !finished[job] && pids[job] == pid) {
        finished[job] = 1;
        running--;
        done++;
      }
    }
  }
  return 0;
}
