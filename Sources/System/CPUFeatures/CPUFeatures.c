#include "CPUFeatures.h"

int staccato_cpu_supports_avx2_fma(void) {
#if defined(__x86_64__)
    // The compiler runtime's CPU model also checks, through XGETBV, that the OS enables the AVX state.
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return 0;
#endif
}
