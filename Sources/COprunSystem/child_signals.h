#ifndef OPRUN_CHILD_SIGNALS_H
#define OPRUN_CHILD_SIGNALS_H
// Signal set-up for a child that runs in (a copy of) oprun's memory before it execs or
// for good: raw system calls only, so that no libc lock, cache or sanitizer interceptor
// of a multithreaded parent is touched. Internal to COprunSystem.

/// Every action oprun may have changed back to its default (see
/// `oprun_prepare_child_signal_reset`), and every signal still pending dropped.
void oprun_child_reset_signal_actions(void);

/// The same for all actions, for a child that never execs.
void oprun_child_reset_every_signal_action(void);

/// In oprun, before its action of `signal_number` changes: the children reset it too.
/// Every change oprun makes goes through here (signal_trap.c).
void oprun_note_signal_action_change(int signal_number);

/// In oprun, before a child is made: reads once which actions are not the default already
/// (inherited ignores, the Swift runtime's crash handlers).
void oprun_prepare_child_signal_reset(void);

/// Sets `signal_number` to SIG_IGN (which also drops it if pending).
void oprun_child_ignore_signal(int signal_number);

/// Clears the signal mask.
void oprun_child_unblock_signals(void);

#endif
