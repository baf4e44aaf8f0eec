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

int staccato_cpu_supports_avx512(void) {
#if defined(__x86_64__)
    // The AVX2 check initialises the CPU model first; as there, the runtime also checks that the
    // OS saves the mask and upper vector registers.
    return staccato_cpu_supports_avx2_fma() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")
        && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq");
#else
    return 0;
#endif
}
