package miditest_test

import (
	"testing"

	"github.com/lets-app/lets/backend/surface/midi"
	"github.com/lets-app/lets/backend/surface/midi/miditest"
)

func TestBusIsABackend(t *testing.T) {
	var _ midi.Backend = miditest.New()
}
