// Package audio is the sound of the pad: the eleven semantic earcons of the
// experiences spec (§8.1, Appendix A), transposed per accent slot, the Show
// soundtrack, a WAV (RIFF, PCM16) encoder, and the host player behind
// `lets pad daemon --audio-feedback`.
//
// Everything is synthesized by this package's own code. `go generate`
// (gen/) writes the browser's copies into
// frontend/static/pad/experiences/audio/ (the earcon bank and the
// soundtrack, served by the browser pad at /experiences/audio/); a test
// fails when those files are stale. The host player synthesizes the same
// bytes at run time, so it needs no files of its own.
//
// Determinism: synthesis is plain float arithmetic with no randomness and
// no clock; the same inputs give the same bytes.
package audio

//go:generate go run ./gen -out ../../frontend/static/pad/experiences/audio
