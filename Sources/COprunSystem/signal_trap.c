#define _GNU_SOURCE
#include "oprun_system.h"
#include "child_signals.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <termios.h>
#include <unistd.h>

// Handlers only record: the signal number goes down a non-blocking pipe that
// the event loop reads; everything else happens in normal code.

static int trap_fd = -1;
static struct sigaction saved_actions[NSIG];
static int saved[NSIG];

int oprun_signal_trap_claim(int fd) {
  int expected = -1;
  if (__atomic_compare_exchange_n(&trap_fd, &expected, fd, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return 0;
  errno = EBUSY;
  return -1;
}

void oprun_signal_trap_release(void) { __atomic_store_n(&trap_fd, -1, __ATOMIC_SEQ_CST); }

void oprun_signal_trap_record(int signal_number) {
  int saved_errno = errno;
  int fd = __atomic_load_n(&trap_fd, __ATOMIC_RELAXED);
  if (fd >= 0) {
    unsigned char byte = (unsigned char)signal_number;
    // A full pipe already holds undelivered signals: losing a repeat is harmless.
    ssize_t ignored = write(fd, &byte, 1);
    (void)ignored;
  }
  errno = saved_errno;
}

static int replace_action(int signal_number, const struct sigaction *action) {
  if (signal_number <= 0 || signal_number >= NSIG) {
    errno = EINVAL;
    return -1;
  }
  oprun_note_signal_action_change(signal_number);
  if (saved[signal_number]) return sigaction(signal_number, action, 0);
  if (sigaction(signal_number, action, &saved_actions[signal_number]) != 0) return -1;
  saved[signal_number] = 1;
  return 0;
}

int oprun_signal_trap_install(int signal_number) {
  struct sigaction current;
  if (sigaction(signal_number, 0, &current) != 0) return -1;
  if (current.sa_handler == SIG_IGN && !saved[signal_number]) return 1;
  struct sigaction action = {0};
  action.sa_handler = oprun_signal_trap_record;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  return replace_action(signal_number, &action);
}

int oprun_signal_trap_ignore(int signal_number) {
  struct sigaction action = {0};
  action.sa_handler = SIG_IGN;
  sigemptyset(&action.sa_mask);
  return replace_action(signal_number, &action);
}

int oprun_signal_trap_default(int signal_number) {
  struct sigaction action = {0};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  return replace_action(signal_number, &action);
}

int oprun_signal_trap_restore(int signal_number) {
  if (signal_number <= 0 || signal_number >= NSIG || !saved[signal_number]) return 0;
  if (sigaction(signal_number, &saved_actions[signal_number], 0) != 0) return -1;
  saved[signal_number] = 0;
  return 0;
}

int oprun_signal_set_default(int signal_number) {
  oprun_note_signal_action_change(signal_number);
  struct sigaction action = {0};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  return sigaction(signal_number, &action, 0);
}

int oprun_signal_unblock(int signal_number) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signal_number);
  return pthread_sigmask(SIG_UNBLOCK, &set, 0);
}

int oprun_signal_block(int signal_number) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signal_number);
  return pthread_sigmask(SIG_BLOCK, &set, 0);
}

void oprun_block_all_signals(void) {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, 0);
}

int oprun_signal_is_blocked(int signal_number) {
  sigset_t current;
  if (pthread_sigmask(SIG_BLOCK, 0, &current) != 0) return 0;
  return sigismember(&current, signal_number) == 1;
}

int oprun_terminal_set_foreground(int fd, pid_t pgid) {
  sigset_t ttou, previous;
  sigemptyset(&ttou);
  sigaddset(&ttou, SIGTTOU);
  pthread_sigmask(SIG_BLOCK, &ttou, &previous);
  int result = tcsetpgrp(fd, pgid);
  int error = errno;
  pthread_sigmask(SIG_SETMASK, &previous, 0);
  errno = error;
  return result;
}

int oprun_signal_disposition(int signal_number) {
  struct sigaction current;
  if (sigaction(signal_number, 0, &current) != 0) return -1;
  if (current.sa_handler == SIG_DFL) return OPRUN_SIGNAL_DEFAULT;
  if (current.sa_handler == SIG_IGN) return OPRUN_SIGNAL_IGNORED;
  if (current.sa_handler == oprun_signal_trap_record) return OPRUN_SIGNAL_RECORDED;
  return OPRUN_SIGNAL_OTHER;
}
