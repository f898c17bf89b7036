package manifest

import (
	"errors"
	"strings"
	"testing"
)

// FuzzValidateManifest feeds arbitrary unique.json text to the checker: it
// must never panic, every refusal must be an *InvalidError naming a rule
// or check, and an accepted manifest must satisfy the rules.
func FuzzValidateManifest(f *testing.F) {
	f.Add(string(encode(f, base())))
	f.Add(`{"lip":1,"name":"Graph","version":"0.1.0","title":"x","entry":"../x.html","domains":["entity"]}`)
	f.Add(`{"lip":2,"name":"g2","version":"1.0.0-rc.1","title":"t","entry":"a.html","domains":["g2"],"session":{"export":"other.export"},"engine":"^9"}`)
	f.Add(`{"lip":1,"name":"ab","version":"0.0.1","title":"t","entry":"a.html","domains":["ab"],"events":{"ab.x":{"summary":"s","schema":"../s"}},"permissions":{"exec":"python"}}`)
	f.Add(`[]`)
	f.Add(`{"lip":1e400}`)
	c, err := NewChecker(Options{HostVersion: "0.1.0"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		m, _, err := c.Parse([]byte(text))
		if err != nil {
			var ie *InvalidError
			if !errors.As(err, &ie) || len(ie.Problems) == 0 {
				t.Fatalf("refusal is not an *InvalidError with problems: %v", err)
			}
			for _, p := range ie.Problems {
				if (p.Rule == 0) == (p.Check == "") || p.Message == "" {
					t.Fatalf("problem without rule or check: %+v", p)
				}
			}
			return
		}
		if !nameRE().MatchString(m.Name) || m.LIP != LIPMajor || len(m.Domains) == 0 {
			t.Fatalf("accepted a manifest breaking rules 1/6: %+v", m)
		}
		if insidePathProblem(m.Entry) != "" {
			t.Fatalf("accepted entry %q", m.Entry)
		}
		for _, d := range m.Domains {
			if IsReservedDomain(d) {
				t.Fatalf("accepted reserved domain %q", d)
			}
		}
		for typ := range m.Events {
			if !m.InDomain(typ) {
				t.Fatalf("accepted event %q outside %v", typ, m.Domains)
			}
		}
		for typ := range m.Commands {
			if !m.InDomain(typ) {
				t.Fatalf("accepted command %q outside %v", typ, m.Domains)
			}
		}
		for _, typ := range []string{m.Session.Export, m.Session.Snapshot, m.Session.Restore} {
			if !m.InDomain(typ) || strings.Contains(typ, "..") {
				t.Fatalf("session type %q outside %v", typ, m.Domains)
			}
		}
	})
}
