#ifndef STACCATO_STACK_PREFAULT_H
#define STACCATO_STACK_PREFAULT_H

/// The stack a real-time thread may reach below its caller, in bytes: generous for the render
/// path (a few kilobytes deep), small beside any thread's stack (512 KB and up).
#define STACCATO_PREFAULTED_STACK_BYTES (64 * 1024)

/// Writes one byte in every page of the next STACCATO_PREFAULTED_STACK_BYTES of the calling
/// thread's stack, so that the kernel has mapped them before the thread's first deadline: a path
/// that first reaches deeper (a rare command, a release trigger) would otherwise take a minor
/// page fault on the audio thread. No system call, no allocation.
void staccato_prefault_stack(void);

#endif
