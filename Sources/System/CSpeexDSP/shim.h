#ifndef STACCATO_CSPEEXDSP_SHIM_H
#define STACCATO_CSPEEXDSP_SHIM_H
// libspeexdsp's voice processing for the microphone chain: the preprocessor (noise suppression,
// automatic gain, residual-echo suppression) and the echo canceller. Both allocate only in their
// init calls; processing a frame and setting a parameter touch only the state they already hold.
#include <speex/speex_preprocess.h>
#include <speex/speex_echo.h>
#endif
