#ifndef STACCATO_CLV2_SHIM_H
#define STACCATO_CLV2_SHIM_H
// The LV2 plug-in API's C types (lv2-dev, headers only): the descriptor and the host features the
// plug-in uses (URID map, worker, state, log, options). Atoms are read and written in Swift
// (LV2Cycle), on the audio thread, so the build proves that code allocates nothing.
#include <lv2/core/lv2.h>
#include <lv2/atom/atom.h>
#include <lv2/urid/urid.h>
#include <lv2/worker/worker.h>
#include <lv2/state/state.h>
#include <lv2/log/log.h>
#include <lv2/options/options.h>

// log:log's printf is variadic, which Swift cannot call: the plug-in logs whole lines through this.
static inline int staccato_lv2_log_line(const LV2_Log_Log *log, LV2_URID type, const char *line) {
    return log->printf(log->handle, type, "%s\n", line);
}
#endif
