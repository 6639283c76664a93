// libsndfile, for VoiceCell only (the host never links it): durations and
// waveforms of voice notes (Ogg/Opus, Ogg/Vorbis, WAV, FLAC, MP3 from 1.1).
#include <sndfile.h>
#include <float.h>
#include <math.h>

/* The largest |sample| of `count` interleaved samples, ignoring NaN and
 * infinities (float files may hold them): VoiceCell's waveform peaks. In C
 * so that the per-sample loop is fast in debug builds too. */
static inline float cellhost_sndfile_peak(const float *samples, long count) {
    float peak = 0;
    for (long i = 0; i < count; i++) {
        float magnitude = fabsf(samples[i]);
        if (magnitude > peak && magnitude <= FLT_MAX) peak = magnitude;
    }
    return peak;
}
