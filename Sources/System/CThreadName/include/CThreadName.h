#ifndef STACCATO_THREAD_NAME_H
#define STACCATO_THREAD_NAME_H

/// Names the calling thread (at most 15 bytes are kept), as `top -H`, perf and gdb show it:
/// pthread_setname_np, which Swift's Glibc module does not declare. Returns 0, or an errno.
int staccato_name_this_thread(const char *name);

#endif
