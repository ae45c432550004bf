#ifndef OPRUN_CHILD_SIGNALS_H
#define OPRUN_CHILD_SIGNALS_H
// Signal set-up for a child that runs in (a copy of) oprun's memory before it execs or
// for good: raw system calls only, so that no libc lock, cache or sanitizer interceptor
// of a multithreaded parent is touched. Internal to COprunSystem.

/// Every action back to its default, and every signal still pending dropped.
void oprun_child_reset_signal_actions(void);

/// Sets `signal_number` to SIG_IGN (which also drops it if pending).
void oprun_child_ignore_signal(int signal_number);

/// Clears the signal mask.
void oprun_child_unblock_signals(void);

#endif
