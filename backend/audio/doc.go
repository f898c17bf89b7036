// Package audio is the sound of the pad: the eleven semantic earcons of the
// experiences spec (§8.1, Appendix A), transposed per accent slot, the Show
// soundtrack, a WAV (RIFF, PCM16) encoder, and the host player behind
// `lets pad daemon --audio-feedback`.
//
// Everything is synthesized by this package's own code. The generator in
// gen/ writes the browser's copies into
// frontend/static/pad/experiences/audio/ (the earcon bank and the built-in
// Show's soundtrack, served by the browser pad at /experiences/audio/); it
// runs from `go generate ./frontend` (frontend/pad_audio.go), which
// `go generate ./...` reaches after backend/experience has regenerated the
// Show. Tests fail when the files are stale. The host player synthesizes
// the same bytes at run time, so it needs no files of its own.
// Subpackage showaudio turns an experience.Performance into a Score and
// adapts the Player to the daemon.
//
// Determinism: synthesis is plain float arithmetic with no randomness and
// no clock; the same inputs give the same bytes.
package audio
