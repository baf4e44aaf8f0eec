/*
 * An ALSA external filter plugin (extplug) for what real sound cards' hw devices do and a machine
 * without one cannot show:
 *   lock "/path"         only one process at a time may open the PCM: a second open fails with
 *                        -EBUSY while the first holder has it open (pcm.staccato_exclusive);
 *   formats [ "U8" ... ] the client may only use these sample formats, as a card that offers
 *                        none of the application's (pcm.staccato_u8_only).
 * Audio passes through to the slave unchanged. Built by scripts/test-audio.
 *
 * Config:  type staccato_exclusive  slave.pcm "..."  [lock "/path/to/lockfile"]  [formats [ ... ]]
 */
#include <alsa/asoundlib.h>
#include <alsa/pcm_external.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

typedef struct {
    snd_pcm_extplug_t ext;
    int lock_fd;
} exclusive_t;

static snd_pcm_sframes_t exclusive_transfer(snd_pcm_extplug_t *ext,
                                            const snd_pcm_channel_area_t *dst, snd_pcm_uframes_t dst_offset,
                                            const snd_pcm_channel_area_t *src, snd_pcm_uframes_t src_offset,
                                            snd_pcm_uframes_t size) {
    snd_pcm_areas_copy(dst, dst_offset, src, src_offset, ext->channels, size, ext->format);
    return size;
}

static int exclusive_close(snd_pcm_extplug_t *ext) {
    exclusive_t *self = ext->private_data;
    if (self->lock_fd >= 0) close(self->lock_fd); /* closing drops the flock */
    free(self);
    return 0;
}

static const snd_pcm_extplug_callback_t exclusive_callbacks = {
    .transfer = exclusive_transfer,
    .close = exclusive_close,
};

SND_PCM_PLUGIN_DEFINE_FUNC(staccato_exclusive) {
    snd_config_iterator_t i, next;
    snd_config_t *slave = NULL;
    const char *lock_path = NULL;
    snd_config_t *formats = NULL;
    unsigned int format_list[SND_PCM_FORMAT_LAST + 1];
    unsigned int format_count = 0;
    int err;

    snd_config_for_each(i, next, conf) {
        snd_config_t *n = snd_config_iterator_entry(i);
        const char *id;
        if (snd_config_get_id(n, &id) < 0) continue;
        if (strcmp(id, "comment") == 0 || strcmp(id, "type") == 0 || strcmp(id, "hint") == 0) continue;
        if (strcmp(id, "slave") == 0) { slave = n; continue; }
        if (strcmp(id, "lock") == 0) { snd_config_get_string(n, &lock_path); continue; }
        if (strcmp(id, "formats") == 0) { formats = n; continue; }
        SNDERR("Unknown field %s", id);
        return -EINVAL;
    }
    if (!slave) { SNDERR("No slave defined for staccato_exclusive"); return -EINVAL; }

    if (formats) {
        snd_config_iterator_t j, next_format;
        snd_config_for_each(j, next_format, formats) {
            const char *format_name;
            if (snd_config_get_string(snd_config_iterator_entry(j), &format_name) < 0) continue;
            snd_pcm_format_t format = snd_pcm_format_value(format_name);
            if (format == SND_PCM_FORMAT_UNKNOWN || format_count > SND_PCM_FORMAT_LAST) {
                SNDERR("Unknown format %s", format_name);
                return -EINVAL;
            }
            format_list[format_count++] = (unsigned int)format;
        }
    }

    int fd = -1;
    if (lock_path) {
        fd = open(lock_path, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
        if (fd < 0) return -errno;
        if (flock(fd, LOCK_EX | LOCK_NB) < 0) { close(fd); return -EBUSY; }
    }

    exclusive_t *self = calloc(1, sizeof(*self));
    if (!self) { if (fd >= 0) close(fd); return -ENOMEM; }
    self->lock_fd = fd;
    self->ext.version = SND_PCM_EXTPLUG_VERSION;
    self->ext.name = "Staccato exclusive-access test device";
    self->ext.callback = &exclusive_callbacks;
    self->ext.private_data = self;
    err = snd_pcm_extplug_create(&self->ext, name, root, slave, stream, mode);
    if (err < 0) { if (fd >= 0) close(fd); free(self); return err; }
    if (format_count > 0) {
        /* The slave takes the same formats, so the filter passes samples through untouched. */
        if ((err = snd_pcm_extplug_set_param_list(&self->ext, SND_PCM_EXTPLUG_HW_FORMAT, format_count, format_list)) < 0 ||
            (err = snd_pcm_extplug_set_slave_param_list(&self->ext, SND_PCM_EXTPLUG_HW_FORMAT, format_count, format_list)) < 0) {
            snd_pcm_extplug_delete(&self->ext);
            return err;
        }
    }
    *pcmp = self->ext.pcm;
    return 0;
}
SND_PCM_PLUGIN_SYMBOL(staccato_exclusive);
