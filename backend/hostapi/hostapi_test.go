package hostapi

import (
	"encoding/json"
	"testing"

	"github.com/lets-app/lets/backend/lip"
)

// The error body keeps the host's field names; hint is left out when empty.
func TestErrorBodyJSON(t *testing.T) {
	b, err := json.Marshal(ErrorBody{Error: ErrorDetail{Code: lip.CodeUnknownWindow, Message: "window \"w9\" is not open", Hint: HintWindows}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"error":{"code":"unknown_window","message":"window \"w9\" is not open","hint":"list_windows"}}`; string(b) != want {
		t.Fatalf("got %s, want %s", b, want)
	}
	b, _ = json.Marshal(ErrorBody{Error: ErrorDetail{Code: lip.CodeInternal, Message: "x"}})
	if want := `{"error":{"code":"internal","message":"x"}}`; string(b) != want {
		t.Fatalf("got %s, want %s", b, want)
	}
}

func TestHints(t *testing.T) {
	for code, want := range map[lip.Code]Hint{
		lip.CodeUnknownWindow: HintWindows, lip.CodeUnknownUnique: HintUniques, CodeUnknownSession: HintSessions, lip.CodeBadData: "",
	} {
		if got := HintFor(code); got != want {
			t.Errorf("HintFor(%s) = %q, want %q", code, got, want)
		}
	}
	for h, want := range map[Hint]string{HintWindows: "GET /lip/windows", HintSessions: "GET /lip/sessions", HintUniques: "GET /lip/uniques", "other": ""} {
		if got := h.Route(); got != want {
			t.Errorf("%q.Route() = %q, want %q", h, got, want)
		}
	}
}

// The uniques listing keeps the byte order the host always wrote (it used
// to be a map, so its keys came out sorted).
func TestUniqueFieldsInTheOldOrder(t *testing.T) {
	b, err := json.Marshal(Unique{Name: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"builtin":false,"commands":null,"commit":"","description":"","domains":null,"events":null,"exec":null,"name":"hello","source":"","title":"","version":"","warnings":null}`
	if string(b) != want {
		t.Fatalf("got %s\nwant %s", b, want)
	}
}
