package frontend

// The pad's sounds in static/pad/experiences/audio (the 99 earcons and the
// built-in Show's soundtrack) are synthesized by backend/audio/gen. The
// directive lives here, not in backend/audio, so that `go generate ./...`
// runs it after backend/experience has regenerated the Show it follows.
//
//go:generate go run ../backend/audio/gen -out static/pad/experiences/audio
