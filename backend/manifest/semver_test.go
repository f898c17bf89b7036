package manifest

import "testing"

func TestParseVersion(t *testing.T) {
	good := map[string]string{
		"0.1.0": "0.1.0", "v1.2.3": "1.2.3", "1.2.3-rc.1+build.5": "1.2.3-rc.1+build.5", "10.20.30": "10.20.30", "1.0.0-alpha-a.b-c": "1.0.0-alpha-a.b-c",
	}
	for in, want := range good {
		v, err := ParseVersion(in)
		if err != nil || v.String() != want {
			t.Errorf("%q → %v, %v", in, v, err)
		}
	}
	for _, in := range []string{"", "1", "1.2", "01.2.3", "1.2.3-", "1.2.3-01", "1.2.3+", "a.b.c", "1.2.3.4", "1.2.3-é", "-1.2.3"} {
		if _, err := ParseVersion(in); err == nil {
			t.Errorf("%q should be refused", in)
		}
	}
}

func TestComparePrecedence(t *testing.T) {
	// semver.org §11 example order.
	order := []string{"1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.1.0", "2.0.0"}
	for i := range order {
		for j := range order {
			a, _ := ParseVersion(order[i])
			b, _ := ParseVersion(order[j])
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := a.Compare(b); got != want {
				t.Errorf("%s vs %s = %d, want %d", order[i], order[j], got, want)
			}
		}
	}
	a, _ := ParseVersion("1.0.0+a")
	b, _ := ParseVersion("1.0.0+b")
	if a.Compare(b) != 0 {
		t.Error("build metadata must not order")
	}
}

func TestRanges(t *testing.T) {
	cases := []struct {
		rng string
		in  []string
		out []string
	}{
		{">=0.1.0", []string{"0.1.0", "0.2.0", "3.0.0"}, []string{"0.0.9", "0.1.0-rc.1"}},
		{">0.1.0", []string{"0.1.1"}, []string{"0.1.0"}},
		{"<=1.2.3", []string{"1.2.3", "0.1.0"}, []string{"1.2.4"}},
		{"<1.2.3", []string{"1.2.2"}, []string{"1.2.3"}},
		{"=1.2.3", []string{"1.2.3"}, []string{"1.2.4", "1.2.2"}},
		{"1.2.3", []string{"1.2.3"}, []string{"1.2.4"}},
		{"1.2", []string{"1.2.0", "1.2.9"}, []string{"1.3.0", "1.1.9"}},
		{"1.2.x", []string{"1.2.5"}, []string{"1.3.0"}},
		{"*", []string{"0.0.1", "9.9.9"}, nil},
		{"^1.2.3", []string{"1.2.3", "1.9.0"}, []string{"2.0.0", "1.2.2"}},
		{"^0.2.3", []string{"0.2.3", "0.2.9"}, []string{"0.3.0"}},
		{"^0.0.3", []string{"0.0.3"}, []string{"0.0.4"}},
		{"^1.2", []string{"1.2.0", "1.9.9"}, []string{"2.0.0"}},
		{"^0.0", []string{"0.0.9"}, []string{"0.1.0"}},
		{"^1", []string{"1.0.0", "1.9.9"}, []string{"2.0.0", "0.9.0"}},
		{"~1.2.3", []string{"1.2.3", "1.2.9"}, []string{"1.3.0"}},
		{"~1.2", []string{"1.2.0", "1.2.9"}, []string{"1.3.0"}},
		{"~1", []string{"1.0.0", "1.9.9"}, []string{"2.0.0"}},
		{">1.2", []string{"1.3.0"}, []string{"1.2.9"}},
		{"<=1.2", []string{"1.2.9"}, []string{"1.3.0"}},
		{">=1.2.0 <1.5.0", []string{"1.2.0", "1.4.9"}, []string{"1.5.0", "1.1.0"}},
		{">= 1.2.0  < 1.5.0", []string{"1.3.0"}, []string{"1.5.0"}},
		{"^0.3 || >=1.0.0", []string{"0.3.1", "1.2.0"}, []string{"0.4.0"}},
	}
	for _, tc := range cases {
		r, err := ParseRange(tc.rng)
		if err != nil {
			t.Errorf("%q: %v", tc.rng, err)
			continue
		}
		for _, s := range tc.in {
			v, _ := ParseVersion(s)
			if !r.Contains(v) {
				t.Errorf("%q should contain %s", tc.rng, s)
			}
		}
		for _, s := range tc.out {
			v, _ := ParseVersion(s)
			if r.Contains(v) {
				t.Errorf("%q should not contain %s", tc.rng, s)
			}
		}
		if r.String() != tc.rng {
			t.Errorf("String = %q", r.String())
		}
	}
	for _, bad := range []string{"", "soon", ">=", ">=1.2.3 ||", "~>1.2", "1.2.3-", ">*"} {
		if _, err := ParseRange(bad); err == nil {
			t.Errorf("%q should be refused", bad)
		}
	}
}

func BenchmarkRangeContains(b *testing.B) {
	r, _ := ParseRange("^0.3 || >=1.0.0 <2.0.0")
	v, _ := ParseVersion("1.4.2")
	for b.Loop() {
		_ = r.Contains(v)
	}
}
