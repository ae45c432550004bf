#define _GNU_SOURCE
#include "child_signals.h"

#include <pthread.h>
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

// A bit per signal whose action in oprun may not be SIG_DFL. A child resets these alone:
// resetting all 62 took 62 system calls (20 µs here) while oprun waited for the vfork.
static unsigned long possibly_changed_actions;
static pthread_once_t inherited_actions_read = PTHREAD_ONCE_INIT;

static unsigned long signal_bit(int signal_number) { return 1UL << (signal_number - 1); }

static void read_inherited_actions(void) {
  unsigned long changed = 0;
  for (int signal_number = 1; signal_number < kernel_signal_count; signal_number++) {
    struct kernel_sigaction current = {0, 0, 0, 0};
    if (syscall(SYS_rt_sigaction, signal_number, 0, &current, kernel_sigset_size) != 0) continue;
    if (current.handler != SIG_DFL) changed |= signal_bit(signal_number);
  }
  __atomic_fetch_or(&possibly_changed_actions, changed, __ATOMIC_SEQ_CST);
}

void oprun_prepare_child_signal_reset(void) { pthread_once(&inherited_actions_read, read_inherited_actions); }

void oprun_note_signal_action_change(int signal_number) {
  oprun_prepare_child_signal_reset();
  if (signal_number > 0 && signal_number < kernel_signal_count) {
    __atomic_fetch_or(&possibly_changed_actions, signal_bit(signal_number), __ATOMIC_SEQ_CST);
  }
}

// Setting an action to SIG_IGN discards what is pending. A signal meant for oprun's own
// group (a Ctrl-C that lands while the child, blocked, has not left the group yet) must not
// kill the child as soon as the mask is cleared. Called after setpgid, so nothing new comes
// from that group; only the few pending signals pay for the extra call.
static void reset_actions(unsigned long to_reset) {
  unsigned long pending = 0;
  syscall(SYS_rt_sigpending, &pending, kernel_sigset_size);
  to_reset |= pending;
  for (int signal_number = 1; signal_number < kernel_signal_count; signal_number++) {
    if (signal_number == SIGKILL || signal_number == SIGSTOP) continue;
    if (!(to_reset & signal_bit(signal_number))) continue;
    if (pending & signal_bit(signal_number)) set_action(signal_number, SIG_IGN);
    set_action(signal_number, SIG_DFL);
  }
}

void oprun_child_reset_signal_actions(void) {
  reset_actions(__atomic_load_n(&possibly_changed_actions, __ATOMIC_RELAXED));
}

void oprun_child_reset_every_signal_action(void) { reset_actions(~0UL); }

void oprun_child_ignore_signal(int signal_number) { set_action(signal_number, SIG_IGN); }

void oprun_child_unblock_signals(void) {
  unsigned long empty_mask = 0;
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &empty_mask, 0, kernel_sigset_size);
}
