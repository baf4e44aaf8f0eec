/*
 * An ALSA external filter plugin (extplug) that lets only one process at a time open the PCM:
 * the behaviour of a real sound card's hw device, which a machine without one cannot show.
 * A second open fails with -EBUSY while the first holder has it open. Audio passes through to
 * the slave unchanged. Built by scripts/test-audio; used by pcm.staccato_exclusive.
 *
 * Config:  type staccato_exclusive  slave.pcm "..."  lock "/path/to/lockfile"
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
    const char *lock_path = "/tmp/staccato-exclusive.lock";
    int err;

    snd_config_for_each(i, next, conf) {
        snd_config_t *n = snd_config_iterator_entry(i);
        const char *id;
        if (snd_config_get_id(n, &id) < 0) continue;
        if (strcmp(id, "comment") == 0 || strcmp(id, "type") == 0 || strcmp(id, "hint") == 0) continue;
        if (strcmp(id, "slave") == 0) { slave = n; continue; }
        if (strcmp(id, "lock") == 0) { snd_config_get_string(n, &lock_path); continue; }
        SNDERR("Unknown field %s", id);
        return -EINVAL;
    }
    if (!slave) { SNDERR("No slave defined for staccato_exclusive"); return -EINVAL; }

    int fd = open(lock_path, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) return -errno;
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) { close(fd); return -EBUSY; }

    exclusive_t *self = calloc(1, sizeof(*self));
    if (!self) { close(fd); return -ENOMEM; }
    self->lock_fd = fd;
    self->ext.version = SND_PCM_EXTPLUG_VERSION;
    self->ext.name = "Staccato exclusive-access test device";
    self->ext.callback = &exclusive_callbacks;
    self->ext.private_data = self;
    err = snd_pcm_extplug_create(&self->ext, name, root, slave, stream, mode);
    if (err < 0) { close(fd); free(self); return err; }
    *pcmp = self->ext.pcm;
    return 0;
}
SND_PCM_PLUGIN_SYMBOL(staccato_exclusive);
