// The features every instance is given: URIDs mapped for all of them, and a log whose error lines
// are counted.
#include "lv2-host.h"

#include <lv2/atom/atom.h>
#include <lv2/buf-size/buf-size.h>
#include <lv2/midi/midi.h>
#include <lv2/patch/patch.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

// MARK: URIDs

static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;
static char *mapped[4096];
static uint32_t mapped_count;

LV2_URID map_uri(LV2_URID_Map_Handle handle, const char *uri) {
    (void)handle;
    pthread_mutex_lock(&map_lock);
    uint32_t found = 0;
    for (uint32_t index = 0; index < mapped_count && !found; index++) {
        if (strcmp(mapped[index], uri) == 0) found = index + 1;
    }
    if (!found && mapped_count < 4096) {
        mapped[mapped_count++] = strdup(uri);
        found = mapped_count;
    }
    pthread_mutex_unlock(&map_lock);
    return found;
}

static const char *unmap_uri(LV2_URID_Unmap_Handle handle, LV2_URID urid) {
    (void)handle;
    pthread_mutex_lock(&map_lock);
    const char *uri = urid >= 1 && urid <= mapped_count ? mapped[urid - 1] : NULL;
    pthread_mutex_unlock(&map_lock);
    return uri;
}

LV2_URID_Map map = {NULL, map_uri};
LV2_URID_Unmap unmap = {NULL, unmap_uri};
Urids urid;

void map_uris(void) {
    urid.atom_path = map_uri(NULL, LV2_ATOM__Path);
    urid.atom_string = map_uri(NULL, LV2_ATOM__String);
    urid.atom_urid = map_uri(NULL, LV2_ATOM__URID);
    urid.atom_int = map_uri(NULL, LV2_ATOM__Int);
    urid.atom_float = map_uri(NULL, LV2_ATOM__Float);
    urid.atom_object = map_uri(NULL, LV2_ATOM__Object);
    urid.atom_sequence = map_uri(NULL, LV2_ATOM__Sequence);
    urid.atom_chunk = map_uri(NULL, LV2_ATOM__Chunk);
    urid.midi_event = map_uri(NULL, LV2_MIDI__MidiEvent);
    urid.patch_set = map_uri(NULL, LV2_PATCH__Set);
    urid.patch_get = map_uri(NULL, LV2_PATCH__Get);
    urid.patch_property = map_uri(NULL, LV2_PATCH__property);
    urid.patch_value = map_uri(NULL, LV2_PATCH__value);
    urid.min_block = map_uri(NULL, LV2_BUF_SIZE__minBlockLength);
    urid.max_block = map_uri(NULL, LV2_BUF_SIZE__maxBlockLength);
    urid.nominal_block = map_uri(NULL, LV2_BUF_SIZE__nominalBlockLength);
    urid.log_error = map_uri(NULL, LV2_LOG__Error);
    urid.instrument = map_uri(NULL, INSTRUMENT);
    urid.error = map_uri(NULL, ERROR_PROPERTY);
}

// MARK: Log

int logged_errors;

static int log_vprintf(LV2_Log_Handle handle, LV2_URID type, const char *format, va_list arguments) {
    (void)handle;
    char line[2048];
    vsnprintf(line, sizeof line, format, arguments);
    if (type == urid.log_error) __atomic_add_fetch(&logged_errors, 1, __ATOMIC_RELAXED);
    fprintf(stderr, "  [plug-in log] %s", line);
    return 0;
}

static int log_printf(LV2_Log_Handle handle, LV2_URID type, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    int result = log_vprintf(handle, type, format, arguments);
    va_end(arguments);
    return result;
}

LV2_Log_Log log_feature_data = {NULL, log_printf, log_vprintf};
