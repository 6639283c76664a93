// libsndfile, for VoiceCell only (the host never links it): durations and
// waveforms of voice notes (Ogg/Opus, Ogg/Vorbis, WAV, FLAC, MP3 from 1.1).
#include <sndfile.h>
