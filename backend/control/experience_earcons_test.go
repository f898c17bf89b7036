package control

import (
	"reflect"
	"testing"

	"github.com/lets-app/lets/backend/wire"
)

// Experiences spec §11 cases 44–46: the host earcons the control plane
// asks for. (45 and 46 restate wire cases 58 and 87 from the audio side.)

func TestExperiencesCase044_StateSequenceEarcons(t *testing.T) {
	log := &earconLog{}
	p := newPlane(t, audio(log))
	update(p, 1, cx("s"), wire.StateRunning)
	log.got = nil
	update(p, 2, cx("s"), wire.StateWaitingForReply)
	update(p, 3, cx("s"), wire.StateWaitingForReply) // unchanged: no sound
	update(p, 4, cx("s"), wire.StateWaitingForApproval)
	update(p, 5, cx("s"), wire.StateSuccess)
	want := []string{"question/0", "approval/0", "success/0"}
	if !reflect.DeepEqual(log.got, want) {
		t.Fatalf("earcons = %v, want %v", log.got, want)
	}
}

func TestExperiencesCase045_SceneSelectionEarcon(t *testing.T) {
	log := &earconLog{}
	p := newPlane(t, audio(log))
	update(p, 1, cx("A"), wire.StateRunning)
	update(p, 2, cx("B"), wire.StateRunning)
	log.got = nil
	p.SelectSlot(3, 1)
	if want := []string{"session_selected/1"}; !reflect.DeepEqual(log.got, want) {
		t.Fatalf("earcons = %v, want %v", log.got, want)
	}
}

func TestExperiencesCase046_ApproveThenUnavailableReject(t *testing.T) {
	log := &earconLog{}
	p := newPlane(t, debounce(0), audio(log))
	update(p, 1, cx("s"), wire.StateWaitingForApproval)
	subscribe(p, 2, 10, cx("s"), "", false, approve)
	log.got = nil
	p.Press(3, approve)
	p.Press(4, reject) // nobody subscribed to reject
	if want := []string{"approve/0", "unavailable/0"}; !reflect.DeepEqual(log.got, want) {
		t.Fatalf("earcons = %v, want %v", log.got, want)
	}
}
