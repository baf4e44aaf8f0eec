#define _GNU_SOURCE
#include "CThreadName.h"
#include <pthread.h>
#include <string.h>

int staccato_name_this_thread(const char *name) {
    // Linux keeps 15 bytes and a NUL; a longer name is refused whole, so it is cut here.
    char kept[16];
    strncpy(kept, name, sizeof kept - 1);
    kept[sizeof kept - 1] = 0;
    return pthread_setname_np(pthread_self(), kept);
}
