#define _GNU_SOURCE
#include "child_signals.h"

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

struct kernel_sigaction {
  void (*handler)(int);
  unsigned long flags;
  void *restorer;
  unsigned long mask;
};

enum { kernel_signal_count = 65, kernel_sigset_size = 8 };

static void set_action(int signal_number, void (*handler)(int)) {
  struct kernel_sigaction action = {handler, 0, 0, 0};
  syscall(SYS_rt_sigaction, signal_number, &action, 0, kernel_sigset_size);
}

// Setting an action to SIG_IGN discards what is pending. A signal meant for oprun's own
// group (a Ctrl-C that lands while the child, blocked, has not left the group yet) must not
// kill the child as soon as the mask is cleared. Called after setpgid, so nothing new comes
// from that group; only the few pending signals pay for the extra call.
void oprun_child_reset_signal_actions(void) {
  unsigned long pending = 0;
  syscall(SYS_rt_sigpending, &pending, kernel_sigset_size);
  for (int signal_number = 1; signal_number < kernel_signal_count; signal_number++) {
    if (signal_number == SIGKILL || signal_number == SIGSTOP) continue;
    if (pending & (1UL << (signal_number - 1))) set_action(signal_number, SIG_IGN);
    set_action(signal_number, SIG_DFL);
  }
}

void oprun_child_ignore_signal(int signal_number) { set_action(signal_number, SIG_IGN); }

void oprun_child_unblock_signals(void) {
  unsigned long empty_mask = 0;
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &empty_mask, 0, kernel_sigset_size);
}
